// Metadata refreshes are paced as Java's Metadata.timeToAllowUpdate paces them (KIP-580): at least
// retry.backoff.ms after the last answer, doubling (jittered ±20 %) up to retry.backoff.max.ms while answers
// bring nothing new or requests fail. So a client waiting for a leader asks a few times a second, not back to back.

import { describe, expect, it } from 'vitest';
import { exponentialBackoff, MetadataCache } from '../../../models/clients/index.ts';
import type { MetadataResponse } from '../../../models/protocol/index.ts';
import { RandomStream } from '../../../models/sim/index.ts';
import { leaderWait } from './leader-wait.ts';

const OPTIONS = { initialMs: 100, maxMs: 1000 };

function answer(leader: number, leaderEpoch: number): MetadataResponse {
  return {
    brokers: [{ brokerId: 0, host: 'localhost', port: 9092, rack: null }],
    controllerId: 0,
    metadataOffset: 1,
    topics: [
      {
        name: 't',
        topicId: 'id-t',
        errorCode: 0,
        partitions: [
          { partition: 0, errorCode: leader < 0 ? 5 : 0, leader, leaderEpoch, replicas: [0], isr: [0] },
        ],
      },
    ],
  };
}

describe('exponentialBackoff', () => {
  it('doubles from the initial value and stops at the maximum', () => {
    const mid = () => 0.5; // factor 1: no jitter
    expect([0, 1, 2, 3, 4, 10].map((n) => exponentialBackoff(n, OPTIONS, mid))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('jitters by ±20 % and never goes above the maximum', () => {
    expect(exponentialBackoff(0, OPTIONS, () => 0)).toBe(80);
    expect(exponentialBackoff(0, OPTIONS, () => 0.999)).toBe(119);
    expect(exponentialBackoff(3, OPTIONS, () => 0.999)).toBe(959);
    expect(exponentialBackoff(4, OPTIONS, () => 0.999)).toBe(1000);
    expect(exponentialBackoff(2, { initialMs: 50, maxMs: 50 }, () => 0)).toBe(50);
  });
});

describe('MetadataCache refresh backoff', () => {
  it('lets the first refresh go at once, then waits retry.backoff.ms after each answer', () => {
    const cache = new MetadataCache(['broker-0'], OPTIONS);
    const random = new RandomStream('1', 'metadata-backoff');
    expect(cache.timeToAllowUpdate(0, random)).toBe(0);
    expect(cache.update(answer(0, 1), 1000)).toBe(true);
    const wait = cache.timeToAllowUpdate(1000, random);
    expect(wait).toBeGreaterThanOrEqual(80);
    expect(wait).toBeLessThan(120);
    // Drawn once per answer: asking again gives the same time.
    expect(cache.timeToAllowUpdate(1010, random)).toBe(wait - 10);
  });

  it('backs off further with answers that teach nothing new, and starts over with a newer leader epoch', () => {
    const cache = new MetadataCache(['broker-0'], OPTIONS);
    const random = new RandomStream('2', 'metadata-backoff');
    let now = 0;
    cache.update(answer(-1, 1), now);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const w = cache.timeToAllowUpdate(now, random);
      waits.push(w);
      now += w;
      expect(cache.update(answer(-1, 1), now)).toBe(false);
    }
    // About 100, 100, 200, 400, 800, 1000 (the first is the plain retry.backoff.ms after a new answer).
    const expected = [100, 100, 200, 400, 800, 1000];
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(Math.min(0.8 * expected[i]!, 1000));
      expect(w).toBeLessThanOrEqual(Math.min(1.2 * expected[i]!, 1000));
    });
    // The leader is elected (a newer epoch): the backoff is back to retry.backoff.ms.
    expect(cache.update(answer(0, 2), now)).toBe(true);
    expect(cache.timeToAllowUpdate(now, random)).toBeLessThan(120);
  });

  it('backs off with failed attempts, and a refresh for new topics or the periodic one skips the growth', () => {
    const cache = new MetadataCache(['broker-0'], OPTIONS);
    const random = new RandomStream('3', 'metadata-backoff');
    cache.failedUpdate(0);
    cache.failedUpdate(0);
    cache.failedUpdate(0);
    const w = cache.timeToAllowUpdate(0, random);
    expect(w).toBeGreaterThanOrEqual(320);
    expect(w).toBeLessThanOrEqual(480);
    cache.requestUpdateForNewTopics();
    expect(cache.timeToAllowUpdate(0, random)).toBe(0);
    // Four equivalent answers, then metadata.max.age.ms runs out: only retry.backoff.ms remains.
    for (let i = 0; i < 5; i++) cache.update(answer(-1, 1), 10_000);
    expect(cache.timeToAllowUpdate(10_000, random)).toBeGreaterThanOrEqual(640);
    cache.expire();
    expect(cache.timeToAllowUpdate(10_000, random)).toBeLessThan(120);
  });
});

describe('clients waiting for a leader', () => {
  it('refresh metadata with backoff, not back to back, and find the new leader', () => {
    const { c, consumer, producer } = leaderWait([1, 0]);
    const consumerAnswers: number[] = [];
    const update = consumer.metadata.update.bind(consumer.metadata);
    consumer.metadata.update = (res, now) => {
      consumerAnswers.push(now);
      return update(res, now);
    };
    const producerAnswers: number[] = [];
    producer.onEvent((e) => {
      if (e.type === 'metadata') producerAnswers.push(c.now);
    });
    c.crashBroker(1);
    c.runFor('20s');
    expect(c.image.topics.t!.partitions[1]!.leader).toBe(-1);
    for (const answers of [consumerAnswers, producerAnswers]) {
      // About one a second once the backoff reached retry.backoff.max.ms (back to back, it was thousands).
      expect(answers.length).toBeGreaterThanOrEqual(10);
      expect(answers.length).toBeLessThanOrEqual(40);
      for (let i = 1; i < answers.length; i++)
        expect(answers[i]! - answers[i - 1]!).toBeGreaterThanOrEqual(80);
      const last = answers.slice(-5);
      for (let i = 1; i < last.length; i++) expect(last[i]! - last[i - 1]!).toBeGreaterThanOrEqual(800);
    }
    // Partition 0 kept flowing; when broker 1 is back, both clients find partition 1's leader again.
    expect(consumer.position({ topic: 't', partition: 0 })).toBeGreaterThan(3000);
    c.restartBroker(1);
    c.runFor('10s');
    expect(c.image.topics.t!.partitions[1]!.leader).toBe(1);
    expect(producer.metadata.leader('t', 1)?.leader).toBe(1);
    expect(consumer.metadata.leader('t', 1)?.leader).toBe(1);
    expect(consumer.position({ topic: 't', partition: 1 })).toBeGreaterThan(0);
  });
});
