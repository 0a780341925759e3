/**
 * Kafka's Raft test server (`kafka.tools.TestRaftServer`, started by `bin/test-raft-server-start.sh`; the raft
 * module's README of the KAFKA-10533 era, apache/kafka raft/README.md): a standalone Raft quorum member that
 * serves the quorum's log as the single partition `__cluster_metadata-0` to ordinary Kafka clients, so that a
 * VerifiableProducer or kafka-producer-perf-test measures what a Raft write costs. The Raft leader takes a Produce,
 * appends its records to the Raft log (after `controller.quorum.append.linger.ms`, with the append and fsync
 * latencies of `kafkasim.raft.append.ms` / `kafkasim.raft.fsync.ms`) and answers once the high watermark passes
 * them; a voter that is not the leader answers NOT_LEADER_OR_FOLLOWER, with the leader when it knows one.
 * Metadata lists the voters as brokers and the Raft leader as the partition's leader.
 */

import {
  Errors,
  type MetadataRequest,
  type MetadataResponse,
  type MetadataTopic,
  type ProducePartitionResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation } from '../sim/index.ts';
import { RaftClient, type RaftClientOptions } from './raft-client.ts';

/** The one topic the test server serves: the Raft log. */
export const RAFT_TOPIC = '__cluster_metadata';

/** One produced record as the Raft log keeps it. */
export interface TestRaftRecord {
  readonly value: string | null;
  readonly bytes: number;
}

export interface TestRaftServerOptions extends RaftClientOptions {
  /** The node's network id (the clients' bootstrap). */
  address: NodeId;
  /** `host` and `port` of every voter, as its `listeners` says (what Metadata answers). */
  endpoints: ReadonlyMap<number, { host: string; port: number }>;
}

interface PendingProduce {
  readonly lastOffset: number;
  readonly answer: (errorCode: number) => void;
}

export class TestRaftServer extends SimNode {
  readonly raft: RaftClient<TestRaftRecord>;
  readonly replicaId: number;
  readonly #endpoints: ReadonlyMap<number, { host: string; port: number }>;
  /** Produce answers waiting for the high watermark, in offset order. */
  #pending: PendingProduce[] = [];

  constructor(sim: Simulation, options: TestRaftServerOptions) {
    super(sim, options.address);
    this.replicaId = options.nodeId;
    this.#endpoints = options.endpoints;
    this.raft = new RaftClient<TestRaftRecord>(this, options);
    this.raft.onCommit((hw) => this.#committed(hw));
    this.raft.onLeaderChange(() => this.#failPending());
  }

  protected override onStart(): void {
    this.#pending = [];
    this.raft.start();
  }

  protected override onCrash(): void {
    this.#pending = [];
    this.raft.crash();
  }

  protected override onStop(): void {
    this.#failPending();
    this.raft.close();
  }

  protected override onRequest(from: NodeId, payload: unknown, reply: (response: unknown) => void): void {
    if (this.raft.handleRequest(from, payload, reply)) return;
    const type = (payload as { type?: string }).type;
    if (type === 'Metadata') reply(this.#metadata(payload as MetadataRequest));
    else if (type === 'Produce') this.#produce(payload as ProduceRequest, reply);
    else reply({ errorCode: Errors.UNSUPPORTED_VERSION.code, errorMessage: `${type} is not served here` });
  }

  #metadata(req: MetadataRequest): MetadataResponse {
    const leader = this.raft.leaderId ?? -1;
    const voters = [...this.raft.voters];
    const topics: MetadataTopic[] = (req.topics ?? [RAFT_TOPIC]).map((name) =>
      name === RAFT_TOPIC
        ? {
            name,
            topicId: null,
            errorCode: 0,
            partitions: [
              {
                partition: 0,
                errorCode: leader >= 0 ? 0 : Errors.LEADER_NOT_AVAILABLE.code,
                leader,
                leaderEpoch: this.raft.epoch,
                replicas: voters,
                isr: voters,
              },
            ],
          }
        : { name, topicId: null, errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code, partitions: [] },
    );
    return {
      brokers: voters.map((id) => {
        const e = this.#endpoints.get(id) ?? { host: 'localhost', port: 9092 };
        return { brokerId: id, host: e.host, port: e.port, rack: null };
      }),
      controllerId: leader,
      topics,
      metadataOffset: this.raft.committedEnd,
    };
  }

  #produce(req: ProduceRequest, reply: (response: unknown) => void): void {
    const results: ProducePartitionResponse[] = [];
    let waiting = 0;
    const done = (): void => {
      if (req.acks !== 0)
        reply({ correlationId: req.correlationId, partitions: results } satisfies ProduceResponse);
    };
    for (const p of req.partitions) {
      const res: ProducePartitionResponse = {
        topic: p.topic,
        partition: p.partition,
        errorCode: 0,
        baseOffset: -1,
      };
      results.push(res);
      if (p.topic !== RAFT_TOPIC || p.partition !== 0) {
        res.errorCode = Errors.UNKNOWN_TOPIC_OR_PARTITION.code;
        continue;
      }
      if (!this.raft.isLeader) {
        res.errorCode = Errors.NOT_LEADER_OR_FOLLOWER.code;
        const leader = this.raft.leaderId;
        if (leader !== undefined && leader >= 0)
          res.currentLeader = { leaderId: leader, leaderEpoch: this.raft.epoch };
        continue;
      }
      const batch = p.batch;
      const per = batch.count > 0 ? Math.max(0, (batch.bytes - 61) / batch.count) : 0;
      const records: TestRaftRecord[] = [];
      for (let i = 0; i < batch.count; i++)
        records.push({ value: batch.records?.[i]?.value ?? null, bytes: per });
      const { baseOffset, lastOffset } = this.raft.append(records);
      res.baseOffset = baseOffset;
      waiting++;
      this.#pending.push({
        lastOffset,
        answer: (errorCode) => {
          res.errorCode = errorCode;
          if (errorCode !== 0) res.baseOffset = -1;
          if (--waiting === 0) done();
        },
      });
    }
    if (waiting === 0) done();
  }

  /** The high watermark passed these records: their producers get their answers. */
  #committed(hw: number): void {
    let i = 0;
    while (i < this.#pending.length && this.#pending[i]!.lastOffset < hw) this.#pending[i++]!.answer(0);
    if (i > 0) this.#pending = this.#pending.slice(i);
  }

  /** Leadership moved (or the node stops): what was not committed is answered NOT_LEADER_OR_FOLLOWER. */
  #failPending(): void {
    if (this.raft.isLeader && this.raft.role !== 'down') return;
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) p.answer(Errors.NOT_LEADER_OR_FOLLOWER.code);
  }
}
