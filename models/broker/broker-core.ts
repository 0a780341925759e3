// What every part of a broker reads from the broker itself: its id, configs, storage mode, the metadata image it
// has replayed so far, and the node's clock, timers and trace. The parts (replica manager, purgatories, replica
// fetcher, lifecycle, request channel) each take this instead of a pointer to the whole Broker.

import type { MetadataImage } from '../metadata/index.ts';
import type { NodeId, RequestOutcome, Simulation, Timer } from '../sim/index.ts';
import type { StorageMode } from '../storage/index.ts';
import type { BrokerConfig } from './config.ts';

export interface BrokerCore {
  readonly brokerId: number;
  /** The broker's network id (its events' node in the run's fingerprint). */
  readonly id: NodeId;
  /** Whether the broker is up (its timers from before a crash must not act). */
  readonly up: boolean;
  readonly config: BrokerConfig;
  readonly storageMode: StorageMode;
  readonly staticConfigs: Record<string, string>;
  readonly sim: Simulation;
  /** The image at the offset this broker has replayed (replaced, never mutated, at every replay). */
  readonly image: MetadataImage;
  readonly incarnation: number;
  schedule(delay: number, fn: () => void, label?: string): Timer;
  emit(kind: string, fields?: Record<string, unknown>): void;
  request<R = unknown>(
    to: NodeId,
    payload: unknown,
    callback: (outcome: RequestOutcome<R>) => void,
    timeoutMs?: number,
  ): void;
}
