// The balancer's ClusterModel: latest values only, samples dropped when a partition's leader changes, reports
// counted only for partitions their broker leads, stale and fenced brokers, excluded brokers and topics.
import { describe, expect, it } from 'vitest';
import { type AutoBalancerMetricsRequest, ClusterModel } from '../../../models/balancer/index.ts';
import { emptyImage, type LogEntry, type MetadataRecord, replay } from '../../../models/metadata/index.ts';

let offset = 0;
function apply(image = emptyImage(), ...records: MetadataRecord[]) {
  const entries: LogEntry[] = records.map((record) => ({ offset: offset++, record }));
  return replay(image, entries);
}

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

function cluster() {
  offset = 0;
  let image = apply(
    emptyImage(),
    ...[1, 2, 3].map(
      (id): MetadataRecord => ({
        type: 'RegisterBrokerRecord',
        brokerId: id,
        incarnationId: `b${id}`,
        rack: null,
        host: 'localhost',
        port: 9092 + id,
        fenced: false,
      }),
    ),
    { type: 'TopicRecord', name: 't', topicId: TOPIC_ID },
    ...[0, 1, 2].map(
      (p): MetadataRecord => ({
        type: 'PartitionRecord',
        topicId: TOPIC_ID,
        partitionId: p,
        replicas: [p === 0 ? 1 : 2],
        isr: [p === 0 ? 1 : 2],
        removingReplicas: [],
        addingReplicas: [],
        leader: p === 0 ? 1 : 2,
        leaderEpoch: 0,
        partitionEpoch: 0,
      }),
    ),
  );
  return {
    get image() {
      return image;
    },
    set image(i) {
      image = i;
    },
  };
}

function report(brokerId: number, time: number, partitions: [number, number][]): AutoBalancerMetricsRequest {
  return {
    type: 'AutoBalancerMetrics',
    brokerId,
    rack: null,
    time,
    pendingAppendLatencyMs: 1,
    pendingFetchLatencyMs: 1,
    partitions: partitions.map(([partition, bytesIn]) => ({
      topic: 't',
      partition,
      bytesIn,
      bytesOut: bytesIn / 2,
    })),
  };
}

const opts = (now: number) => ({
  now,
  metricsDelayMs: 60_000,
  excludedBrokers: new Set<number>(),
  excludedTopics: new Set<string>(),
});

describe('ClusterModel', () => {
  it('keeps the latest value per partition and ignores partitions the reporter does not lead', () => {
    const c = cluster();
    const m = new ClusterModel();
    m.sync(c.image);
    m.update(
      report(1, 1000, [
        [0, 100],
        [1, 999],
      ]),
    );
    m.update(
      report(2, 1000, [
        [1, 200],
        [2, 300],
      ]),
    );
    m.update(
      report(2, 2000, [
        [1, 250],
        [2, 300],
      ]),
    );
    expect(m.partitions.get(`${TOPIC_ID}:0`)).toMatchObject({ bytesIn: 100, sampleTime: 1000 });
    expect(m.partitions.get(`${TOPIC_ID}:1`)).toMatchObject({
      bytesIn: 250,
      bytesOut: 125,
      sampleTime: 2000,
    });
    const s = m.snapshot(opts(2000));
    expect(s.broker(1)!.loadIn).toBe(100);
    expect(s.broker(2)!.loadIn).toBe(550);
    expect(s.broker(3)!.outOfDate).toBe('no metrics reported yet');
    expect(s.broker(1)!.metricsOutOfDate).toBe(false);
  });

  it("drops a partition's samples when its leader changes (through -1): its new broker is out of date", () => {
    const c = cluster();
    const m = new ClusterModel();
    m.sync(c.image);
    m.update(report(1, 1000, [[0, 100]]));
    m.update(
      report(2, 1000, [
        [1, 200],
        [2, 300],
      ]),
    );
    m.update(report(3, 1000, []));
    c.image = apply(c.image, {
      type: 'PartitionChangeRecord',
      topicId: TOPIC_ID,
      partitionId: 2,
      leader: -1,
      replicas: [3],
      isr: [3],
    });
    m.sync(c.image);
    expect(m.partitions.get(`${TOPIC_ID}:2`)).toMatchObject({ leader: -1, sampleTime: undefined });
    let s = m.snapshot(opts(1500));
    expect(s.partitionCount).toBe(2); // a leaderless partition belongs to no broker
    c.image = apply(c.image, { type: 'PartitionChangeRecord', topicId: TOPIC_ID, partitionId: 2, leader: 3 });
    m.sync(c.image);
    s = m.snapshot(opts(1600));
    expect(s.broker(3)!.outOfDate).toBe('1 partition(s) without metrics yet');
    expect(s.broker(2)!.loadIn).toBe(200);
    m.update(report(3, 2000, [[2, 310]]));
    s = m.snapshot(opts(2000));
    expect(s.broker(3)!.metricsOutOfDate).toBe(false);
    expect(s.broker(3)!.loadIn).toBe(310);
  });

  it('marks brokers out of date after metrics.delay.ms, slow above 10 s of pending latency', () => {
    const c = cluster();
    const m = new ClusterModel();
    m.sync(c.image);
    m.update(report(1, 0, [[0, 100]]));
    m.update({
      ...report(2, 50_000, [
        [1, 1],
        [2, 1],
      ]),
      pendingAppendLatencyMs: 10_001,
    });
    m.update(report(3, 50_000, []));
    const s = m.snapshot(opts(60_001));
    expect(s.broker(1)!.outOfDate).toBe('metrics are 60001 ms old (limit 60000 ms)');
    expect(s.broker(2)!.slow).toBe(true);
    expect(s.broker(3)!.slow).toBe(false);
  });

  it('leaves out fenced and excluded brokers; excluded topics stay put but count', () => {
    const c = cluster();
    const m = new ClusterModel();
    m.sync(c.image);
    for (const b of [1, 2, 3])
      m.update(
        report(
          b,
          0,
          b === 1
            ? [[0, 100]]
            : b === 2
              ? [
                  [1, 1],
                  [2, 2],
                ]
              : [],
        ),
      );
    c.image = apply(c.image, {
      type: 'BrokerRegistrationChangeRecord',
      brokerId: 3,
      brokerEpoch: 2,
      fenced: 1,
    });
    m.sync(c.image);
    const s = m.snapshot({
      now: 0,
      metricsDelayMs: 60_000,
      excludedBrokers: new Set([1]),
      excludedTopics: new Set(['t']),
    });
    expect(s.brokers.map((b) => b.brokerId)).toEqual([2]);
    expect(s.broker(2)!.loadIn).toBe(3);
    expect(s.isMovable(s.find('t', 1))).toBe(false);
  });

  it('publishes ClusterStats: in + out per partition and per fresh broker', () => {
    const c = cluster();
    const m = new ClusterModel();
    m.sync(c.image);
    m.update(report(1, 0, [[0, 100]]));
    m.update(
      report(2, 0, [
        [1, 200],
        [2, 300],
      ]),
    );
    const stats = m.clusterStats(1000, 60_000, new Set([2]));
    expect(stats.partitionLoad('t', 0)).toBe(150);
    expect(stats.brokerLoads.get(2)).toBe(750);
    expect(stats.brokerLoads.has(3)).toBe(false); // never reported
    expect([...stats.excludedBrokers]).toEqual([2]);
    expect(m.clusterStats(61_000, 60_000, new Set()).brokerLoads.size).toBe(0);
  });
});
