import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

describe('MetadataFetch', () => {
  it('returns committed entries from fetchOffset at once, with the high watermark', () => {
    const h = new Harness({ brokers: [0] }).start();
    const committed = h.controller.metadataLog.committedOffset;
    const pending = h.client.send({ type: 'MetadataFetch', replicaId: 7, fetchOffset: 0, maxWaitMs: 5000 });
    const sentAt = h.sim.now;
    h.runUntil(() => pending.done, 'answer');
    expect(pending.at! - sentAt).toBe(2); // one hop there, one back
    const r = pending.response;
    expect(r.errorCode).toBe(0);
    expect(r.entries.map((e) => e.offset)).toEqual(Array.from({ length: committed + 1 }, (_, i) => i));
    expect(r.highWatermark).toBe(committed + 1);
  });

  it('parks a fetch with nothing new and answers as soon as something commits', () => {
    const h = new Harness({ brokers: [0] }).start();
    const next = h.controller.metadataLog.committedOffset + 1;
    const pending = h.client.send({
      type: 'MetadataFetch',
      replicaId: 7,
      fetchOffset: next,
      maxWaitMs: 5000,
    });
    h.sim.runFor(1000);
    expect(pending.done).toBe(false);
    const create = h.client.send({
      type: 'CreateTopics',
      topics: [{ name: 't', numPartitions: 1, replicationFactor: 1 }],
    });
    const createdAt = h.sim.now;
    h.runUntil(() => pending.done, 'parked fetch answered');
    // Request hop (1) + commit delay (1) + answer hop (1), far sooner than maxWaitMs.
    expect(pending.at! - createdAt).toBe(3);
    expect(pending.response.entries.map((e) => e.record.type)).toEqual(['TopicRecord', 'PartitionRecord']);
    expect(pending.response.entries[0]!.offset).toBe(next);
    expect(pending.response.highWatermark).toBe(next + 2);
    h.runUntil(() => create.done, 'create answered');
  });

  it('answers an empty fetch after maxWaitMs when nothing commits', () => {
    const h = new Harness({ brokers: [] }).start();
    const pending = h.client.send({ type: 'MetadataFetch', replicaId: 7, fetchOffset: 0, maxWaitMs: 800 });
    const sentAt = h.sim.now;
    h.runUntil(() => pending.done, 'timed-out fetch');
    expect(pending.at! - sentAt).toBe(802);
    expect(pending.response).toEqual({ errorCode: 0, entries: [], highWatermark: 0 });
  });

  it('rejects a negative fetch offset', () => {
    const h = new Harness({ brokers: [] }).start();
    const r = h.call({ type: 'MetadataFetch', replicaId: 7, fetchOffset: -1, maxWaitMs: 0 });
    expect(r).toMatchObject({ errorCode: Errors.INVALID_REQUEST.code, entries: [] });
  });

  it('lets brokers follow the log: their images match the controller’s', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    h.createTopic('a', 3, 2);
    h.call({
      type: 'IncrementalAlterConfigs',
      resources: [
        {
          resourceType: 'TOPIC',
          resourceName: 'a',
          configs: [{ name: 'retention.ms', op: 'SET', value: '9' }],
        },
      ],
    });
    h.runUntil(
      () => [0, 1].every((id) => h.broker(id).image.offset === h.image.offset),
      'brokers caught up',
      '5s',
    );
    expect(h.broker(0).image.topics).toEqual(h.image.topics);
    expect(h.broker(1).image.configs).toEqual(h.image.configs);
  });
});
