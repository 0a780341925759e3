// The controller on the metadata quorum: the Raft leader is the active controller, standbys replay and answer
// NOT_CONTROLLER, and a failover in the middle of admin operations loses no committed metadata and applies
// nothing twice; every broker converges on one image.

import { describe, expect, it } from 'vitest';
import type { AdminOutcome } from '../../../models/clients/index.ts';
import { LocalMetadataLog, type MetadataRecord } from '../../../models/metadata/index.ts';
import {
  type CreatePartitionsResponse,
  type CreateTopicsResponse,
  Errors,
  type NotControllerResponse,
} from '../../../models/protocol/index.ts';
import { RaftMetadataLog } from '../../../models/raft/index.ts';
import { type NodeId, type RequestOutcome, SimNode } from '../../../models/sim/index.ts';
import { Cluster } from '../../../src/cluster/index.ts';

class Peer extends SimNode {}

function quorumCluster(seed: number): Cluster {
  return new Cluster({ seed, brokers: 3, controllers: 3 }).start('60s');
}

/** Every committed metadata record, from the active controller's log. */
function committedRecords(c: Cluster): MetadataRecord[] {
  return c
    .activeController()!
    .metadataLog.readCommitted(0)
    .map((e) => e.record);
}

/** Runs until every broker and controller holds the active controller's committed image. */
function converge(c: Cluster): void {
  c.runUntil(
    () => {
      const active = c.activeController();
      if (!active) return false;
      const offset = active.committedImage.offset;
      return (
        [...c.brokers.values()].every((b) => b.image.offset === offset) &&
        c.controllers.every((x) => !x.up || x.committedImage.offset === offset)
      );
    },
    { timeout: '60s', description: 'one image everywhere' },
  );
  const image = c.activeController()!.committedImage;
  for (const b of c.brokers.values()) expect(b.image).toEqual(image);
  for (const x of c.controllers) if (x.up) expect(x.committedImage).toEqual(image);
}

describe('the controller on the metadata quorum', () => {
  it('keeps one controller on a local log by default', () => {
    const c = new Cluster({ seed: 1 });
    expect(c.controllers).toHaveLength(1);
    expect(c.controller.raft).toBeUndefined();
    expect(c.controller.metadataLog).toBeInstanceOf(LocalMetadataLog);
  });

  it('the Raft leader is the active controller; standbys replay and answer NOT_CONTROLLER naming it', () => {
    const c = quorumCluster(3);
    expect(c.controllers.map((x) => x.raft?.nodeId)).toEqual([3000, 3001, 3002]);
    expect(c.controller.metadataLog).toBeInstanceOf(RaftMetadataLog);
    const active = c.activeController()!;
    expect(active.raft!.isLeader).toBe(true);
    expect(c.controllers.filter((x) => x.ready)).toEqual([active]);
    c.admin.createTopic({ name: 'orders', partitions: 3, replicationFactor: 3 });
    converge(c);
    const standby = c.controllers.find((x) => x !== active)!;
    expect(Object.keys(standby.committedImage.topics)).toEqual(['orders']);
    const peer = new Peer(c.sim, 'peer');
    peer.start();
    let outcome: RequestOutcome<NotControllerResponse> | undefined;
    peer.request<NotControllerResponse>(
      standby.id,
      { type: 'CreateTopics', topics: [{ name: 'x', numPartitions: 1, replicationFactor: 1 }] },
      (o) => {
        outcome = o;
      },
    );
    c.runFor(10);
    expect(outcome).toMatchObject({
      ok: true,
      response: { errorCode: Errors.NOT_CONTROLLER.code, controllerNodeId: active.id },
    });
  });

  // Crash the active controller at several points of a CreateTopics: before the append, inside the linger,
  // after the append (replicated or not), and after the commit.
  const crashDelays = [0.5, 10, 26, 27.5, 40];

  for (const seed of [3, 8]) {
    for (const delay of crashDelays) {
      it(`topic creation survives a controller failover ${delay} ms in (seed ${seed})`, () => {
        const c = quorumCluster(seed);
        c.admin.createTopic({ name: 'before', partitions: 2, replicationFactor: 3 });
        let outcome: AdminOutcome<CreateTopicsResponse> | undefined;
        c.admin.client.controllerCall<CreateTopicsResponse>(
          { type: 'CreateTopics', topics: [{ name: 'during', numPartitions: 6, replicationFactor: 3 }] },
          (o) => {
            outcome = o;
          },
        );
        c.runFor(delay);
        const crashed = c.activeController()!;
        crashed.crash();
        c.runUntil(() => outcome !== undefined, { timeout: '60s' });
        expect(outcome!.ok).toBe(true);
        const result = (outcome as { ok: true; response: CreateTopicsResponse }).response.topics[0]!;
        // Either this attempt created it, or the first attempt's records had reached a majority and committed.
        expect([0, Errors.TOPIC_ALREADY_EXISTS.code]).toContain(result.errorCode);
        c.restartController(crashed.id);
        converge(c);
        const image = c.activeController()!.committedImage;
        expect(Object.keys(image.topics).sort()).toEqual(['before', 'during']);
        expect(image.topics.during!.partitions).toHaveLength(6);
        const records = committedRecords(c);
        expect(records.filter((r) => r.type === 'TopicRecord' && r.name === 'during')).toHaveLength(1);
        const topicId = image.topics.during!.topicId;
        const partitionIds = records
          .filter((r) => r.type === 'PartitionRecord' && r.topicId === topicId)
          .map((r) => (r as { partitionId: number }).partitionId);
        expect(partitionIds.sort()).toEqual([0, 1, 2, 3, 4, 5]);
      });
    }
  }

  for (const delay of crashDelays) {
    it(`partition expansion survives a controller failover ${delay} ms in`, () => {
      const c = quorumCluster(5);
      c.admin.createTopic({ name: 'grow', partitions: 2, replicationFactor: 2 });
      let outcome: AdminOutcome<CreatePartitionsResponse> | undefined;
      c.admin.client.controllerCall<CreatePartitionsResponse>(
        { type: 'CreatePartitions', topics: [{ name: 'grow', count: 8 }] },
        (o) => {
          outcome = o;
        },
      );
      c.runFor(delay);
      c.activeController()!.crash();
      c.runUntil(() => outcome !== undefined, { timeout: '60s' });
      expect(outcome!.ok).toBe(true);
      const result = (outcome as { ok: true; response: CreatePartitionsResponse }).response.topics[0]!;
      // A retry after a committed first attempt finds 8 partitions already (INVALID_PARTITIONS).
      expect([0, Errors.INVALID_PARTITIONS.code]).toContain(result.errorCode);
      converge(c);
      const image = c.activeController()!.committedImage;
      expect(image.topics.grow!.partitions).toHaveLength(8);
      const topicId = image.topics.grow!.topicId;
      const partitionIds = committedRecords(c)
        .filter((r) => r.type === 'PartitionRecord' && r.topicId === topicId)
        .map((r) => (r as { partitionId: number }).partitionId);
      expect(partitionIds.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      for (const b of c.brokers.values()) expect(b.fenced).toBe(false);
    });
  }

  it('a graceful shutdown of the active controller hands over at once and fences no broker', () => {
    const c = quorumCluster(4);
    const active = c.activeController()!;
    const t0 = c.now;
    active.stop();
    c.runUntil(() => c.activeController() !== undefined, { timeout: '10s' });
    expect(c.now - t0).toBeLessThan(200);
    c.admin.createTopic({ name: 'after', partitions: 1, replicationFactor: 3 });
    c.runFor('15s');
    for (const b of c.brokers.values()) expect(b.fenced).toBe(false);
    converge(c);
    const nodes: NodeId[] = c.controllers.filter((x) => x.ready).map((x) => x.id);
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).not.toBe(active.id);
  });
});
