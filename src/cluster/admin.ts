// Admin operations on a simulated cluster, as a test or scenario uses them: each call sends the request through
// the network and runs the simulation until the answer arrives (admin operations take virtual time, like the
// real ones). Per-item errors come back as Kafka codes and messages; the `...OrThrow` forms raise KafkaError.
// It needs only the simulation and its admin client: what to ask and whom is the caller's (group-admin.ts).

import type { AdminClient, AdminOutcome } from '../../models/clients/index.ts';
import {
  type AlterPartitionReassignmentsResponse,
  type BrokerRequest,
  type ControllerRequest,
  type CreatableTopic,
  type CreatePartitionsResponse,
  type CreateTopicsResponse,
  type DeleteTopicsResponse,
  errorByCode,
  type FailureName,
  type GroupRequest,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
  KafkaError,
  type ListPartitionReassignmentsResponse,
} from '../../models/protocol/index.ts';
import type { NodeId, Simulation, TraceEvent } from '../../models/sim/index.ts';

export interface NewTopic {
  name: string;
  partitions?: number;
  replicationFactor?: number;
  /** Explicit assignment: partition -> broker ids. */
  assignments?: number[][];
  configs?: Record<string, string>;
}

export interface ErrorFields {
  errorCode: number;
  errorMessage?: string;
}

export function toKafkaError(r: ErrorFields): KafkaError | undefined {
  if (r.errorCode === 0) return undefined;
  const name = errorByCode(r.errorCode).name as FailureName;
  return new KafkaError(name, r.errorMessage);
}

/** The trace event a controller emits when it handles each admin request (the moment the request reached it). */
const HANDLED: Partial<Record<ControllerRequest['type'], (e: TraceEvent) => boolean>> = {
  CreateTopics: (e) => e.kind === 'controller.create-topics',
  CreatePartitions: (e) => e.kind === 'controller.create-partitions',
  DeleteTopics: (e) => e.kind === 'controller.delete-topics',
  IncrementalAlterConfigs: (e) => e.kind === 'controller.alter-configs',
  // Not the later phases of a move (they carry no target): the request's own entry, accepted or refused.
  AlterPartitionReassignments: (e) => e.kind === 'controller.reassign' && ('target' in e || 'errorCode' in e),
};

export class ClusterAdmin {
  /** When the controller handled the last request sent through `call` (virtual ms), if it traced it. */
  lastHandledAt: number | undefined;

  constructor(
    private readonly sim: Simulation,
    readonly client: AdminClient,
  ) {}

  /** Sends a controller request and runs the simulation until its answer. */
  call<R>(req: ControllerRequest): R {
    let outcome: AdminOutcome<R> | undefined;
    this.lastHandledAt = undefined;
    const handled = HANDLED[req.type];
    const unsubscribe = handled
      ? this.sim.trace.subscribe((e) => {
          if (this.lastHandledAt === undefined && handled(e)) this.lastHandledAt = e.t;
        })
      : undefined;
    this.client.controllerCall<R>(req, (o) => {
      outcome = o;
    });
    try {
      this.sim.runUntil(() => outcome !== undefined, {
        timeout: this.client.apiTimeoutMs + 1000,
        description: `the answer to ${req.type}`,
      });
    } finally {
      unsubscribe?.();
    }
    if (!outcome!.ok)
      throw new KafkaError('REQUEST_TIMED_OUT', `${req.type} timed out after ${this.client.apiTimeoutMs}ms`);
    return outcome!.response;
  }

  /**
   * Sends one request to one broker (no retry elsewhere: a group request must reach the coordinator) and runs
   * the simulation until it is answered; undefined when it timed out or the connection failed.
   */
  brokerRequest<R>(to: NodeId, req: GroupRequest | BrokerRequest): R | undefined {
    const client = this.client;
    let outcome: { ok: boolean; response?: R } | undefined;
    client.request<R>(
      to,
      req,
      (o) => {
        outcome = o.ok ? { ok: true, response: o.response } : { ok: false };
      },
      client.requestTimeoutMs,
    );
    this.sim.runUntil(() => outcome !== undefined, {
      timeout: client.requestTimeoutMs + 1000,
      description: `the answer to ${req.type}`,
    });
    return outcome?.ok ? outcome.response : undefined;
  }

  createTopics(topics: NewTopic[], validateOnly = false): CreateTopicsResponse['topics'] {
    const creatable: CreatableTopic[] = topics.map((t) => ({
      name: t.name,
      numPartitions: t.assignments ? -1 : (t.partitions ?? -1),
      replicationFactor: t.assignments ? -1 : (t.replicationFactor ?? -1),
      ...(t.assignments ? { assignments: t.assignments } : {}),
      ...(t.configs ? { configs: t.configs } : {}),
    }));
    return this.call<CreateTopicsResponse>({ type: 'CreateTopics', topics: creatable, validateOnly }).topics;
  }

  /** Creates one topic; throws KafkaError on failure; returns the topic id. */
  createTopic(topic: NewTopic): string {
    const [r] = this.createTopics([topic]);
    const err = toKafkaError(r!);
    if (err) throw err;
    return r!.topicId!;
  }

  deleteTopics(names: string[]): DeleteTopicsResponse['topics'] {
    return this.call<DeleteTopicsResponse>({ type: 'DeleteTopics', topics: names }).topics;
  }

  createPartitions(name: string, count: number, assignments?: number[][]): ErrorFields {
    const res = this.call<CreatePartitionsResponse>({
      type: 'CreatePartitions',
      topics: [{ name, count, ...(assignments ? { assignments } : {}) }],
    });
    return res.topics[0]!;
  }

  alterPartitionReassignments(
    partitions: { topic: string; partition: number; replicas: number[] | null }[],
  ): AlterPartitionReassignmentsResponse {
    return this.call<AlterPartitionReassignmentsResponse>({
      type: 'AlterPartitionReassignments',
      partitions,
    });
  }

  listPartitionReassignments(
    partitions?: { topic: string; partition: number }[],
  ): ListPartitionReassignmentsResponse {
    return this.call<ListPartitionReassignmentsResponse>({
      type: 'ListPartitionReassignments',
      ...(partitions ? { partitions } : {}),
    });
  }

  incrementalAlterConfigs(
    resources: IncrementalAlterConfigsRequest['resources'],
  ): IncrementalAlterConfigsResponse['resources'] {
    return this.call<IncrementalAlterConfigsResponse>({ type: 'IncrementalAlterConfigs', resources })
      .resources;
  }
}
