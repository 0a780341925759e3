/**
 * What the controller's decision functions see and return, as Kafka's `ControllerResult`: they read the
 * latest image (committed plus appended-but-uncommitted records, like Kafka's timeline structures at the
 * latest epoch) and return records to append as one batch plus the response to send once that batch commits.
 */

import type { MetadataImage, MetadataRecord } from '../metadata/index.ts';
import {
  type ErrorResult,
  type FailureName,
  KafkaError,
  Errors as ProtocolErrors,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import type { ControllerConfig, StorageMode } from './config.ts';
import type { ClusterStats } from './leader-selector.ts';
import type { PlacementRandom } from './replica-placer.ts';

export interface ControlRandom extends PlacementRandom {
  weightedPick<T>(items: readonly T[], weights: readonly number[]): T;
}

export interface ControlContext {
  /** The latest image: committed plus pending records. */
  readonly image: MetadataImage;
  readonly config: ControllerConfig;
  readonly storageMode: StorageMode;
  /** Placement and shared-mode target selection draw from here. */
  readonly random: ControlRandom;
  /** Traffic loads from the auto-balancer, when it runs; the shared-mode failover weighs brokers by them. */
  readonly clusterStats?: ClusterStats;
  readonly newTopicId: () => string;
  /** Emits a trace event from the controller node. */
  readonly emit: (kind: string, fields: Record<string, unknown>) => void;
}

/** A shared-mode partition move waiting for its old leader to close it and ask for an election. */
export interface PendingElection {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  /** The broker that led the partition before the move. */
  readonly source: number;
}

export interface ControlResult<R> {
  readonly records: MetadataRecord[];
  readonly response: R;
  /** Shared-mode moves this result started that wait for ElectLeaders from the old leader. */
  readonly awaitingElection?: readonly PendingElection[];
  /** Partitions whose pending election this result settled (elected, moved again, or deleted). */
  readonly settledElections?: readonly string[];
}

/** Where a committed result's records went in the metadata log. */
export interface Appended {
  readonly baseOffset: number;
  /** The offset whose commit makes this write durable. */
  readonly lastOffset: number;
}

/**
 * What the parts of the active controller (cluster-control.ts, stream-handover.ts) use of the controller node that
 * holds them, instead of a pointer to it.
 */
export interface ControllerHost {
  readonly config: ControllerConfig;
  /** Virtual time now. */
  readonly now: number;
  /** Committed plus appended-but-uncommitted records: what requests are validated against. */
  readonly latestImage: MetadataImage;
  context(): ControlContext;
  /** Appends a result's records and replies once they are durable; undefined when the log refused them. */
  commit<R>(
    result: ControlResult<R>,
    reply: ((response: unknown) => void) | undefined,
    respond?: (appended: Appended) => unknown,
  ): Appended | undefined;
  emit(kind: string, fields: Record<string, unknown>): void;
  /** A timer of this node's current incarnation. */
  schedule(delayMs: number, fn: () => void, label: string): Timer;
}

export const NO_ERROR: ErrorResult = Object.freeze({ errorCode: 0 });

/** An error result with Kafka's code and either the given message or Kafka's default one. */
export function errorResult(name: FailureName, message?: string): Required<ErrorResult> {
  const entry = ProtocolErrors[name];
  return { errorCode: entry.code, errorMessage: message ?? entry.message };
}

export function fromKafkaError(e: KafkaError): Required<ErrorResult> {
  return { errorCode: e.code, errorMessage: e.message };
}

/** Thrown by validation helpers; callers turn it into an ErrorResult. */
export function fail(name: FailureName, message?: string): never {
  throw new KafkaError(name, message);
}

/** Runs `fn`; a KafkaError it throws becomes the error result, anything else propagates. */
export function catchKafkaError<T>(
  fn: () => T,
): { ok: true; value: T } | { ok: false; error: Required<ErrorResult> } {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof KafkaError) return { ok: false, error: fromKafkaError(e) };
    throw e;
  }
}

/** The key a partition goes by in the controller's soft state. */
export function partitionKey(topicId: string, partition: number): string {
  return `${topicId}:${partition}`;
}
