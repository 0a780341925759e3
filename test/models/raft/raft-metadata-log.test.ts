import { describe, expect, it } from 'vitest';
import { emptyImage, type MetadataRecord, replay } from '../../../models/metadata/index.ts';
import { Errors, KafkaError } from '../../../models/protocol/index.ts';
import { RaftMetadataLog, RaftNode } from '../../../models/raft/index.ts';
import { constant, Simulation } from '../../../models/sim/index.ts';

function quorum() {
  const sim = new Simulation({ seed: 5, defaultLatency: constant(1) });
  const nodes = [0, 1, 2].map((id) => new RaftNode<MetadataRecord>(sim, { nodeId: id, voters: [0, 1, 2] }));
  const logs = nodes.map((n) => new RaftMetadataLog(n.raft));
  for (const n of nodes) n.start();
  sim.runUntil(() => nodes.some((n) => n.raft.isLeader && n.raft.highWatermark !== undefined), {
    timeout: '10s',
  });
  const leader = nodes.findIndex((n) => n.raft.isLeader);
  return { sim, nodes, logs, leader };
}

const topic: MetadataRecord = { type: 'TopicRecord', name: 'orders', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' };

describe('RaftMetadataLog', () => {
  it('appends only on the Raft leader; elsewhere NOT_CONTROLLER', () => {
    const { logs, leader } = quorum();
    const follower = logs[(leader + 1) % 3]!;
    let error: unknown;
    try {
      follower.append([topic]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KafkaError);
    expect((error as KafkaError).code).toBe(Errors.NOT_CONTROLLER.code);
    expect((error as KafkaError).message).toContain(`leader ${leader}`);
  });

  it('commits when the high watermark passes the batch; readers skip the LeaderChange records', () => {
    const { sim, nodes, logs, leader } = quorum();
    const log = logs[leader]!;
    const commits: number[] = [];
    log.onCommit((o) => commits.push(o));
    const start = nodes[leader]!.raft.epochStartOffset!;
    const { baseOffset, lastOffset } = log.append([topic]);
    // Offset `start` is the LeaderChange record: the first data record comes after it.
    expect(baseOffset).toBe(start + 1);
    expect(lastOffset).toBe(start + 1);
    expect(log.readCommitted(0)).toEqual([]);
    sim.runUntil(() => log.committedOffset >= lastOffset, { timeout: '1s' });
    expect(commits.at(-1)).toBe(lastOffset);
    expect(log.readCommitted(0)).toEqual([expect.objectContaining({ offset: baseOffset, record: topic })]);
    expect(log.readCommitted(baseOffset + 1)).toEqual([]);
    // The record is a frozen copy: the writer's object is not shared.
    const entry = log.readCommitted(0)[0]!;
    expect(entry.record).not.toBe(topic);
    expect(Object.isFrozen(entry.record)).toBe(true);
    // Followers replay the same committed records into the same image. They learn the new high watermark with
    // their next Fetch, which the leader parks until new data or its max wait (500 ms) runs out.
    sim.runFor(600);
    const images = logs.map((l) => replay(emptyImage(), l.readCommitted(0)));
    for (const image of images) expect(Object.keys(image.topics)).toEqual(['orders']);
    expect(images[0]!.offset).toBe(images[1]!.offset);
  });

  it('a listener that unsubscribes stops being called; maxEntries caps a read', () => {
    const { sim, logs, leader } = quorum();
    const log = logs[leader]!;
    const seen: number[] = [];
    const off = log.onCommit((o) => seen.push(o));
    log.append([topic]);
    sim.runFor(100);
    off();
    const count = seen.length;
    expect(count).toBeGreaterThan(0);
    log.append([
      { ...topic, name: 'b', topicId: 'BAAAAAAAAAAAAAAAAAAAAA' },
      { ...topic, name: 'c', topicId: 'CAAAAAAAAAAAAAAAAAAAAA' },
    ]);
    sim.runFor(100);
    expect(seen.length).toBe(count);
    expect(log.readCommitted(0, 2).map((e) => (e.record as { name: string }).name)).toEqual(['orders', 'b']);
  });
});
