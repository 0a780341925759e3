/**
 * Broker liveness, as Kafka's `BrokerHeartbeatManager` (metadata/src/main/java/org/apache/kafka/controller/):
 * soft state that only the active controller keeps (last contact time, the metadata offset each broker has
 * replayed, the offset at which a broker entered controlled shutdown), and the heartbeat state machine:
 *
 * | current             | condition                                                   | next                |
 * |---------------------|-------------------------------------------------------------|---------------------|
 * | FENCED              | wantShutDown                                                | SHUTDOWN_NOW        |
 * | FENCED              | !wantFence && currentMetadataOffset >= registration offset  | UNFENCED            |
 * | UNFENCED            | wantFence (and wantShutDown)                                | FENCED (SHUTDOWN_NOW)|
 * | UNFENCED            | wantShutDown, still leads partitions                        | CONTROLLED_SHUTDOWN |
 * | UNFENCED            | wantShutDown, leads nothing                                 | SHUTDOWN_NOW        |
 * | CONTROLLED_SHUTDOWN | leads nothing, controlledShutdownOffset <= lowestActiveOffset| SHUTDOWN_NOW        |
 */
import type { BrokerRegistration, MetadataImage } from '../metadata/index.ts';

export type BrokerControlState = 'FENCED' | 'UNFENCED' | 'CONTROLLED_SHUTDOWN' | 'SHUTDOWN_NOW';

export interface HeartbeatIntent {
  readonly wantFence: boolean;
  readonly wantShutDown: boolean;
  readonly currentMetadataOffset: number;
}

export function currentBrokerState(registration: BrokerRegistration): BrokerControlState {
  if (registration.inControlledShutdown) return 'CONTROLLED_SHUTDOWN';
  return registration.fenced ? 'FENCED' : 'UNFENCED';
}

/** What the controller tells a broker about its own fencing: SHUTDOWN_NOW fences it too. */
export function isFencedState(state: BrokerControlState): boolean {
  return state === 'FENCED' || state === 'SHUTDOWN_NOW';
}

export function nextBrokerState(
  current: BrokerControlState,
  intent: HeartbeatIntent,
  registerBrokerRecordOffset: number,
  hasLeaderships: () => boolean,
  controlledShutdownReady: () => boolean,
): BrokerControlState {
  switch (current) {
    case 'FENCED':
      if (intent.wantShutDown) return 'SHUTDOWN_NOW';
      if (!intent.wantFence && intent.currentMetadataOffset >= registerBrokerRecordOffset) return 'UNFENCED';
      return 'FENCED';
    case 'UNFENCED':
      if (intent.wantFence) return intent.wantShutDown ? 'SHUTDOWN_NOW' : 'FENCED';
      if (intent.wantShutDown) return hasLeaderships() ? 'CONTROLLED_SHUTDOWN' : 'SHUTDOWN_NOW';
      return 'UNFENCED';
    case 'CONTROLLED_SHUTDOWN':
      if (hasLeaderships()) return 'CONTROLLED_SHUTDOWN';
      return controlledShutdownReady() ? 'SHUTDOWN_NOW' : 'CONTROLLED_SHUTDOWN';
    case 'SHUTDOWN_NOW':
      return 'SHUTDOWN_NOW';
  }
}

interface BrokerSession {
  lastContactMs: number;
  /** The metadata offset the broker reported it has replayed; -1 until it says. */
  metadataOffset: number;
  controlledShutdownOffset: number | undefined;
}

export class BrokerHeartbeatManager {
  private readonly sessions = new Map<number, BrokerSession>();

  constructor(private readonly sessionTimeoutMs: number) {}

  /** A heartbeat (or registration) arrived now. */
  touch(brokerId: number, nowMs: number, metadataOffset: number): void {
    const s = this.sessions.get(brokerId);
    if (s) {
      s.lastContactMs = nowMs;
      s.metadataOffset = metadataOffset;
    } else {
      this.sessions.set(brokerId, {
        lastContactMs: nowMs,
        metadataOffset,
        controlledShutdownOffset: undefined,
      });
    }
  }

  remove(brokerId: number): void {
    this.sessions.delete(brokerId);
  }

  lastContactMs(brokerId: number): number | undefined {
    return this.sessions.get(brokerId)?.lastContactMs;
  }

  /** Kafka's hasValidSession: unfenced and heard from within the session timeout. */
  hasValidSession(image: MetadataImage, brokerId: number, nowMs: number): boolean {
    const registration = image.brokers[brokerId];
    const s = this.sessions.get(brokerId);
    if (!registration || registration.fenced || !s) return false;
    return s.lastContactMs + this.sessionTimeoutMs > nowMs;
  }

  /** Only the first offset counts: the records that started the shutdown. */
  maybeSetControlledShutdownOffset(brokerId: number, offset: number): void {
    const s = this.sessions.get(brokerId);
    if (s && s.controlledShutdownOffset === undefined) s.controlledShutdownOffset = offset;
  }

  /** The lowest metadata offset among active brokers (unfenced, not shutting down); Infinity if none. */
  lowestActiveOffset(image: MetadataImage): number {
    let lowest = Number.POSITIVE_INFINITY;
    for (const b of Object.values(image.brokers)) {
      if (b.fenced || b.inControlledShutdown) continue;
      lowest = Math.min(lowest, this.sessions.get(b.brokerId)?.metadataOffset ?? -1);
    }
    return lowest;
  }

  /** Every active broker has replayed the records that put this broker into controlled shutdown. */
  controlledShutdownReady(image: MetadataImage, brokerId: number): boolean {
    const offset = this.sessions.get(brokerId)?.controlledShutdownOffset;
    return offset !== undefined && offset <= this.lowestActiveOffset(image);
  }

  /** One unfenced broker whose session expired (lowest id first), as Kafka fences one at a time. */
  findOneStaleBroker(image: MetadataImage, nowMs: number): number | undefined {
    for (const b of Object.values(image.brokers)) {
      if (b.fenced) continue;
      const last = this.sessions.get(b.brokerId)?.lastContactMs;
      if (last !== undefined && last + this.sessionTimeoutMs <= nowMs) return b.brokerId;
    }
    return undefined;
  }

  /** When the next unfenced broker's session expires, if any. */
  nextExpiry(image: MetadataImage): number | undefined {
    let next: number | undefined;
    for (const b of Object.values(image.brokers)) {
      if (b.fenced) continue;
      const last = this.sessions.get(b.brokerId)?.lastContactMs;
      if (last === undefined) continue;
      const expiry = last + this.sessionTimeoutMs;
      if (next === undefined || expiry < next) next = expiry;
    }
    return next;
  }
}
