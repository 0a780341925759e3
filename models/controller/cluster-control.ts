/**
 * The brokers' side of the active controller: registration, heartbeats and the session timeout that fences a
 * silent broker. Kafka divides this between `ClusterControlManager` (registerBroker; activate, which gives every
 * registered broker a fresh session), `BrokerHeartbeatManager` (the sessions, broker-heartbeats.ts) and
 * `QuorumController`'s processBrokerHeartbeat and its rescheduled maybeFenceStaleBroker event
 * (metadata/src/main/java/org/apache/kafka/controller/). All of it is soft state of the active controller: a
 * controller that crashes or renounces loses it, and the next one starts the sessions afresh.
 */

import type { MetadataRecord } from '../metadata/index.ts';
import type {
  BrokerHeartbeatRequest,
  BrokerHeartbeatResponse,
  BrokerRegistrationRequest,
  BrokerRegistrationResponse,
} from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import { checkBrokerEpoch } from './alter-partition.ts';
import {
  BrokerHeartbeatManager,
  currentBrokerState,
  isFencedState,
  nextBrokerState,
} from './broker-heartbeats.ts';
import {
  type ControllerHost,
  type ControlResult,
  errorResult,
  NO_ERROR,
  type PendingElection,
} from './control-context.ts';
import { beginControlledShutdown, fenceBroker, unfenceBroker } from './leadership.ts';

/** What cluster control uses of the controller node that holds it. */
export interface ClusterControlHost extends ControllerHost {
  /** Shared-mode moves waiting for the old leader's ElectLeaders. */
  readonly pendingElections: PendingElection[];
  /** The partition keys of those moves. */
  pendingElectionKeys(): Set<string>;
}

export class ClusterControl {
  readonly #host: ClusterControlHost;
  #heartbeats: BrokerHeartbeatManager;
  #fenceTimer: Timer | undefined;

  constructor(host: ClusterControlHost) {
    this.#host = host;
    this.#heartbeats = this.#newSessions();
  }

  #newSessions(): BrokerHeartbeatManager {
    return new BrokerHeartbeatManager(this.#host.config['broker.session.timeout.ms']);
  }

  /** The node (re)starts: no session survives it. */
  reset(): void {
    this.#heartbeats = this.#newSessions();
  }

  /** ClusterControlManager.activate: every registered broker gets a fresh session. */
  activate(): void {
    const { latestImage, now } = this.#host;
    for (const id of Object.keys(latestImage.brokers)) this.#heartbeats.touch(Number(id), now, -1);
  }

  /** The node stops being active: no more session checks. */
  deactivate(): void {
    this.#fenceTimer?.cancel();
    this.#fenceTimer = undefined;
  }

  /** BrokerRegistration (ClusterControlManager.registerBroker). */
  register(req: BrokerRegistrationRequest, reply: (response: unknown) => void): void {
    const host = this.#host;
    const image = host.latestImage;
    const existing = Object.hasOwn(image.brokers, req.brokerId) ? image.brokers[req.brokerId] : undefined;
    const where = { brokerId: req.brokerId, incarnationId: req.incarnationId };
    if (
      existing &&
      existing.incarnationId !== req.incarnationId &&
      this.#heartbeats.hasValidSession(image, req.brokerId, host.now)
    ) {
      const error = errorResult(
        'DUPLICATE_BROKER_REGISTRATION',
        'Another broker is registered with that broker id.',
      );
      host.emit('controller.register', { ...where, ...error });
      const response: BrokerRegistrationResponse = { ...error, brokerEpoch: -1 };
      reply(response);
      return;
    }
    const records: MetadataRecord[] = [];
    let settled: readonly string[] = [];
    if (existing && !existing.fenced) {
      // Kafka relies on unclean-shutdown handling (ELR) here; kafkasim fences the old registration first so
      // that no partition keeps a leader or ISR member whose registration is about to be replaced.
      const fenced = fenceBroker(host.context(), req.brokerId, 're-registration', host.pendingElections);
      records.push(...fenced.records);
      settled = fenced.settledElections ?? [];
    }
    if (existing && existing.incarnationId !== req.incarnationId) this.#heartbeats.remove(req.brokerId);
    records.push({
      type: 'RegisterBrokerRecord',
      brokerId: req.brokerId,
      incarnationId: req.incarnationId,
      rack: req.rack,
      host: req.host,
      port: req.port,
      fenced: true,
    });
    const appended = host.commit({ records, response: undefined, settledElections: settled }, reply, (a) => {
      const response: BrokerRegistrationResponse = {
        ...NO_ERROR,
        brokerEpoch: a.baseOffset + records.length - 1,
      };
      return response;
    });
    if (!appended) return;
    const brokerEpoch = appended.baseOffset + records.length - 1;
    this.#heartbeats.touch(req.brokerId, host.now, -1);
    host.emit('controller.register', { ...where, rack: req.rack, brokerEpoch, reregistration: !!existing });
    this.scheduleFenceCheck();
  }

  /** BrokerHeartbeat (QuorumController.processBrokerHeartbeat): the broker's state machine moves on. */
  heartbeat(req: BrokerHeartbeatRequest, reply: (response: unknown) => void): void {
    const host = this.#host;
    const image = host.latestImage;
    const epochError = checkBrokerEpoch(image, req.brokerId, req.brokerEpoch);
    if (epochError) {
      const response: BrokerHeartbeatResponse = {
        ...epochError,
        isCaughtUp: false,
        isFenced: true,
        shouldShutDown: false,
      };
      reply(response);
      return;
    }
    const id = req.brokerId;
    const registration = image.brokers[id]!;
    const current = currentBrokerState(registration);
    const next = nextBrokerState(
      current,
      req,
      registration.brokerEpoch,
      () => this.#hasLeaderships(id),
      () => this.#heartbeats.controlledShutdownReady(image, id),
    );
    let result: ControlResult<undefined> = { records: [], response: undefined };
    if (current !== next) {
      const ctx = host.context();
      if (next === 'UNFENCED') {
        result = unfenceBroker(ctx, id, registration.brokerEpoch, host.pendingElectionKeys());
      } else if (next === 'CONTROLLED_SHUTDOWN') {
        result = beginControlledShutdown(ctx, id, registration.brokerEpoch);
      } else if (!registration.fenced) {
        const reason = next === 'SHUTDOWN_NOW' ? 'controlled-shutdown-complete' : 'requested';
        result = fenceBroker(ctx, id, reason, host.pendingElections);
      }
      if (next === 'SHUTDOWN_NOW') host.emit('controller.shutdown-granted', { brokerId: id, from: current });
    }
    this.#heartbeats.touch(id, host.now, req.currentMetadataOffset);
    const response: BrokerHeartbeatResponse = {
      ...NO_ERROR,
      isCaughtUp: req.currentMetadataOffset >= registration.brokerEpoch,
      isFenced: isFencedState(next),
      shouldShutDown: next === 'SHUTDOWN_NOW',
    };
    const appended = host.commit({ ...result, response }, reply);
    if (appended && next === 'CONTROLLED_SHUTDOWN') {
      this.#heartbeats.maybeSetControlledShutdownOffset(id, appended.lastOffset);
    }
    this.scheduleFenceCheck();
  }

  /** Leads a partition, or (shared mode) still has to close one that was moved away from it. */
  #hasLeaderships(brokerId: number): boolean {
    for (const wait of this.#host.pendingElections) if (wait.source === brokerId) return true;
    for (const topic of Object.values(this.#host.latestImage.topics)) {
      for (const p of topic.partitions) if (p.leader === brokerId) return true;
    }
    return false;
  }

  /** One timer at the next session expiry, as Kafka reschedules its maybeFenceStaleBroker event. */
  scheduleFenceCheck(): void {
    this.#fenceTimer?.cancel();
    this.#fenceTimer = undefined;
    const expiry = this.#heartbeats.nextExpiry(this.#host.latestImage);
    if (expiry === undefined) return;
    this.#fenceTimer = this.#host.schedule(
      Math.max(0, expiry - this.#host.now),
      () => this.#fenceStaleBrokers(),
      'controller.fence-check',
    );
  }

  /** Fences expired brokers one at a time, each batch seeing the one before, as Kafka does. */
  #fenceStaleBrokers(): void {
    const host = this.#host;
    for (;;) {
      const id = this.#heartbeats.findOneStaleBroker(host.latestImage, host.now);
      if (id === undefined) break;
      const lastContactMs = this.#heartbeats.lastContactMs(id);
      host.emit('controller.session-expired', {
        brokerId: id,
        lastContactMs,
        sessionTimeoutMs: host.config['broker.session.timeout.ms'],
      });
      const appended = host.commit(
        fenceBroker(host.context(), id, 'session-timeout', host.pendingElections),
        undefined,
      );
      if (!appended) break;
    }
    this.scheduleFenceCheck();
  }
}
