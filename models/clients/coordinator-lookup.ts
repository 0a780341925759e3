// Finding a group's coordinator (FindCoordinator, Java's AbstractCoordinator.lookupCoordinator): asked of any
// broker, retried after retry.backoff.ms, forgotten when a response says the coordinator moved or is gone.
import type { FindCoordinatorResponse } from '../protocol/index.ts';
import type { NodeId, RandomStream, RequestOutcome, Timer } from '../sim/index.ts';
import type { ConsumerConfig } from './config.ts';
import type { MetadataCache } from './metadata-cache.ts';

/** What the lookup needs from its member. */
export interface CoordinatorLookupHost {
  readonly groupId: string;
  readonly config: ConsumerConfig;
  readonly metadata: MetadataCache;
  readonly up: boolean;
  random(name: string): RandomStream;
  request<R>(to: NodeId, payload: unknown, cb: (o: RequestOutcome<R>) => void, timeoutMs: number): void;
  schedule(delay: number, fn: () => void, label: string): Timer;
  trace(kind: string, fields: Record<string, unknown>): void;
  countError(code: number): void;
  /** The coordinator is known (again). */
  onCoordinator(): void;
}

export class CoordinatorLookup {
  /** The coordinator's broker id, once known. */
  coordinatorId: number | undefined;
  private finding = false;

  constructor(private readonly host: CoordinatorLookupHost) {}

  /** A restart: the coordinator is unknown and nobody is asking. */
  reset(): void {
    this.coordinatorId = undefined;
    this.finding = false;
  }

  find(): void {
    const host = this.host;
    if (this.finding || this.coordinatorId !== undefined || !host.up) return;
    this.finding = true;
    host.request<FindCoordinatorResponse>(
      host.metadata.pickNode(host.random('coordinator')),
      { type: 'FindCoordinator', key: host.groupId },
      (o) => {
        this.finding = false;
        if (o.ok && o.response.errorCode === 0) {
          this.coordinatorId = o.response.nodeId;
          host.trace('member.coordinator', { coordinator: o.response.nodeId });
          host.onCoordinator();
          return;
        }
        if (o.ok) host.countError(o.response.errorCode);
        host.schedule(host.config['retry.backoff.ms'], () => this.find(), 'member.find-coordinator');
      },
      host.config['request.timeout.ms'],
    );
  }

  markUnknown(why: string): void {
    if (this.coordinatorId === undefined) return;
    this.host.trace('member.coordinator-unknown', { coordinator: this.coordinatorId, why });
    this.coordinatorId = undefined;
    this.find();
  }
}
