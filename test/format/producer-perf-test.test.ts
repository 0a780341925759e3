import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Errors, type FailureName, kafkaError } from '../../models/protocol/index.ts';
import {
  DEFAULT_PRODUCER_RETRIES,
  FormatInputError,
  formatInvalidMetadataWarn,
  formatProduceErrorWarns,
  formatProduceRetryWarn,
  formatProducerPerfTotal,
  formatProducerPerfWindow,
  latencyPercentiles,
  latencySamplingInterval,
  PRODUCER_PERF_CLIENT_ID,
  ProducerPerfStats,
  sampleLatencies,
} from '../../src/format/index.ts';
import { histogramPercentiles } from '../../src/format/producer-perf-test.ts';

const T = 'continuous-self-balancing-topic';

describe('window line', () => {
  it('reproduces the source workflow’s line from its inputs: 25622 records of 1 KiB in 5001 ms', () => {
    // 402265 ms total latency / 25622 = 15.69995 -> 15.7 (AutoMQ's self-balancing example, step 6).
    expect(
      formatProducerPerfWindow({
        records: 25622,
        bytes: 25622 * 1024,
        elapsedMs: 5001,
        totalLatencyMs: 402265,
        maxLatencyMs: 41,
      }),
    ).toBe(
      '25622 records sent, 5123.4 records/sec (5.00 MB/sec), 15.7 ms avg latency, 41.0 ms max latency.\n',
    );
  });

  it('reproduces the dip window of the workflow: 17129 records in 5001 ms', () => {
    expect(
      formatProducerPerfWindow({
        records: 17129,
        bytes: 17129 * 1024,
        elapsedMs: 5001,
        totalLatencyMs: 17129 * 40,
        maxLatencyMs: 900,
      }),
    ).toMatch(
      /^17129 records sent, 3425\.1 records\/sec \(3\.34 MB\/sec\), 40\.0 ms avg latency, 900\.0 ms max/,
    );
  });
});

describe('final line', () => {
  it('prints records/sec with %f and latencies with %.2f (text a JVM printed for the same numbers)', () => {
    expect(
      formatProducerPerfTotal({
        records: 1024000,
        bytes: 1024000 * 1024,
        elapsedMs: 200012,
        totalLatencyMs: 12288000,
        maxLatencyMs: 1234,
        percentiles: [5, 30, 80, 900],
      }),
    ).toBe(
      '1024000 records sent, 5119.692818 records/sec (5.00 MB/sec), 12.00 ms avg latency, 1234.00 ms max latency, ' +
        '5 ms 50th, 30 ms 95th, 80 ms 99th, 900 ms 99.9th.\n',
    );
  });

  it('marks the steady-state summary and prints NaN for an average over no records, as Java does', () => {
    const out = formatProducerPerfTotal({
      records: 0,
      bytes: 0,
      elapsedMs: 1000,
      totalLatencyMs: 0,
      maxLatencyMs: 0,
      percentiles: [0, 0, 0, 0],
      steadyState: true,
    });
    expect(out).toBe(
      '0 steady state records sent, 0.000000 records/sec (0.00 MB/sec), NaN ms avg latency, 0.00 ms max latency, ' +
        '0 ms 50th, 0 ms 95th, 0 ms 99th, 0 ms 99.9th.\n',
    );
  });
});

describe('percentiles', () => {
  it('samples every numRecords / min(numRecords, 500000) records (integer division)', () => {
    expect(latencySamplingInterval(1024000)).toBe(2);
    expect(latencySamplingInterval(500000)).toBe(1);
    expect(latencySamplingInterval(1500001)).toBe(3);
    expect(latencySamplingInterval(10)).toBe(1);
    expect(() => latencySamplingInterval(0)).toThrow(FormatInputError);
    expect(sampleLatencies([10, 11, 12, 13, 14, 15, 16], 1_500_000)).toEqual([10, 13, 16]);
  });

  it('takes value[(int)(p * size)] of the sorted samples (values a JVM computed), 0 with no samples', () => {
    expect(latencyPercentiles([9, 1, 7, 3, 5, 2, 8, 4, 6, 10])).toEqual([6, 10, 10, 10]);
    expect(latencyPercentiles(Array.from({ length: 2000 }, (_, i) => 2000 - i))).toEqual([
      1001, 1901, 1981, 1999,
    ]);
    expect(latencyPercentiles([])).toEqual([0, 0, 0, 0]);
  });
});

describe('ProducerPerfStats', () => {
  it('prints a window once a record completes 5000 ms after the window start, then restarts the window', () => {
    const stats = new ProducerPerfStats(6, 1000);
    expect(stats.record(10, 100, 2000)).toBeNull();
    expect(stats.record(20, 100, 5999)).toBeNull();
    expect(stats.record(30, 100, 6000)).toBe(
      '3 records sent, 0.6 records/sec (0.00 MB/sec), 20.0 ms avg latency, 30.0 ms max latency.\n',
    );
    expect(stats.record(5, 100, 10999)).toBeNull();
    expect(stats.record(7, 100, 11000)).toBe(
      '2 records sent, 0.4 records/sec (0.00 MB/sec), 6.0 ms avg latency, 7.0 ms max latency.\n',
    );
    expect(stats.total(12000)).toBe(
      '5 records sent, 0.454545 records/sec (0.00 MB/sec), 14.40 ms avg latency, 30.00 ms max latency, ' +
        '10 ms 50th, 30 ms 95th, 30 ms 99th, 30 ms 99.9th.\n',
    );
  });
});

describe('ProducerPerfStats.recordMany (one call per acknowledged run of records)', () => {
  it('prints the same window lines and total as one record() per record', () => {
    const runs = fc.array(
      fc.record({
        latency: fc.integer({ min: 0, max: 3000 }),
        count: fc.integer({ min: 1, max: 40 }),
        advance: fc.integer({ min: 0, max: 4000 }),
      }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(runs, fc.constantFrom(100, 1_500_000, 2_600_000), (rs, numRecords) => {
        const one = new ProducerPerfStats(numRecords, 1000, 0);
        const many = new ProducerPerfStats(numRecords, 1000, 0);
        const byRecord: (string | null)[] = [];
        const byRun: (string | null)[] = [];
        let now = 1000;
        for (const r of rs) {
          now += r.advance;
          let line: string | null = null;
          for (let i = 0; i < r.count; i++) line = one.record(r.latency, 1024, now) ?? line;
          byRecord.push(line);
          byRun.push(many.recordMany(r.latency, r.count, 1024, now));
        }
        expect(byRun).toEqual(byRecord);
        expect(many.total(now + 1)).toBe(one.total(now + 1));
      }),
    );
  });
});

describe('ProducerPerfStats keeps its samples as a histogram', () => {
  it('prints the percentiles of the record-by-record sample list (sampleLatencies, then latencyPercentiles)', () => {
    const runs = fc.array(
      fc.record({ latency: fc.integer({ min: 0, max: 400 }), count: fc.integer({ min: 1, max: 9 }) }),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(runs, fc.constantFrom(50, 1_000_001, 1_500_000), (rs, numRecords) => {
        const stats = new ProducerPerfStats(numRecords, 0);
        const perRecord: number[] = [];
        for (const r of rs) {
          stats.recordMany(r.latency, r.count, 100, 1);
          for (let i = 0; i < r.count; i++) perRecord.push(r.latency);
        }
        const [p50, p95, p99, p999] = latencyPercentiles(sampleLatencies(perRecord, numRecords));
        expect(stats.total(2)).toMatch(
          new RegExp(` ${p50} ms 50th, ${p95} ms 95th, ${p99} ms 99th, ${p999} ms 99\\.9th\\.\n$`),
        );
      }),
    );
  });

  it('histogramPercentiles equals latencyPercentiles of the samples the histogram counts', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 60 }), { maxLength: 300 }), (samples) => {
        const counts = new Map<number, number>();
        for (const v of samples) counts.set(v, (counts.get(v) ?? 0) + 1);
        expect(histogramPercentiles(counts)).toEqual(latencyPercentiles(samples));
      }),
    );
  });
});

describe('Sender WARN lines', () => {
  const view = {
    clientId: PRODUCER_PERF_CLIENT_ID,
    correlationId: 10354,
    topic: T,
    partition: 7,
    attemptsLeft: DEFAULT_PRODUCER_RETRIES - 0 - 1,
    error: 'NOT_LEADER_OR_FOLLOWER' as const,
  };

  it('prints both lines of the AutoMQ self-balancing example (step 6) verbatim', () => {
    expect(formatProduceErrorWarns(view)).toBe(
      'WARN [Producer clientId=perf-producer-client] Got error produce response with correlation id 10354 on ' +
        `topic-partition ${T}-7, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER ` +
        '(org.apache.kafka.clients.producer.internals.Sender)\n' +
        'WARN [Producer clientId=perf-producer-client] Received invalid metadata error in produce request on ' +
        `partition ${T}-7 due to org.apache.kafka.common.errors.NotLeaderOrFollowerException: For requests ` +
        'intended only for the leader, this error indicates that the broker is not the current leader. For ' +
        'requests intended for any replica, this error indicates that the broker is not a replica of the topic ' +
        'partition. Going to request metadata update now (org.apache.kafka.clients.producer.internals.Sender)\n',
    );
  });

  it('adds the log4j timestamp when given and the broker’s error message when present', () => {
    expect(
      formatProduceRetryWarn({
        ...view,
        error: 'NETWORK_EXCEPTION',
        errorMessage: 'Disconnected from node 0',
        attemptsLeft: 1,
        timestampMs: 1700000001234,
      }),
    ).toBe(
      '[2023-11-14 22:13:21,234] WARN [Producer clientId=perf-producer-client] Got error produce response with ' +
        `correlation id 10354 on topic-partition ${T}-7, retrying (1 attempts left). Error: NETWORK_EXCEPTION. ` +
        'Error Message: Disconnected from node 0 (org.apache.kafka.clients.producer.internals.Sender)\n',
    );
  });

  it('uses the unknown-topic wording for UNKNOWN_TOPIC_OR_PARTITION and no second line for other errors', () => {
    expect(
      formatInvalidMetadataWarn({
        ...view,
        clientId: 'producer-1',
        topic: 'test',
        partition: 0,
        error: 'UNKNOWN_TOPIC_OR_PARTITION',
      }),
    ).toBe(
      'WARN [Producer clientId=producer-1] Received unknown topic or partition error in produce request on ' +
        'partition test-0. The topic-partition may not exist or the user may not have Describe access to it ' +
        '(org.apache.kafka.clients.producer.internals.Sender)\n',
    );
    expect(formatInvalidMetadataWarn({ ...view, error: 'NOT_ENOUGH_REPLICAS' })).toBeNull();
    expect(formatProduceErrorWarns({ ...view, error: 'NOT_ENOUGH_REPLICAS' }).split('\n')).toHaveLength(2);
  });

  it("names the exception as the KafkaError's toString, for every invalid-metadata error and message", () => {
    const names = (Object.keys(Errors) as (keyof typeof Errors)[]).filter(
      (n) => Errors[n].invalidMetadata && n !== 'UNKNOWN_TOPIC_OR_PARTITION',
    );
    expect(names.length).toBeGreaterThan(3);
    for (const error of names as FailureName[])
      for (const errorMessage of [undefined, null, '', 'Leader moved'])
        expect(formatInvalidMetadataWarn({ ...view, error, errorMessage })).toContain(
          ` due to ${kafkaError(error, errorMessage ?? undefined).toString()} Going to request`,
        );
  });
});
