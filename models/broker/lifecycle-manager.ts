// The broker's lifecycle with the controller (Kafka's BrokerLifecycleManager): register (retrying every
// second), heartbeat every 2 s with the metadata offset replayed so far, learn fencing from the answers,
// re-register on STALE_BROKER_EPOCH. It also follows the metadata log by long-polling MetadataFetch (a KRaft
// broker's Raft observer, BrokerMetadataListener) and hands every committed batch to the broker.

import type { LogEntry } from '../metadata/index.ts';
import type {
  BrokerHeartbeatResponse,
  BrokerRegistrationResponse,
  MetadataFetchResponse,
} from '../protocol/index.ts';
import { Errors } from '../protocol/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { ControllerChannel } from './controller-channel.ts';

export interface LifecycleHost extends BrokerCore {
  readonly id: string;
  readonly rack: string | null;
  /** Replays committed metadata records into the broker's image and acts on what changed. */
  applyMetadata(entries: readonly LogEntry[]): void;
  /** The controller accepted this incarnation's registration (brokerEpoch is set). */
  onRegistered(): void;
}

export class BrokerLifecycleManager {
  brokerEpoch = -1;
  fenced = true;
  private wantShutDown = false;

  constructor(
    private readonly host: LifecycleHost,
    private readonly controller: ControllerChannel,
  ) {}

  /** At every start: a new registration, the metadata log from the start of the (empty) image. */
  start(): void {
    this.brokerEpoch = -1;
    this.fenced = true;
    this.wantShutDown = false;
    this.register();
    this.fetchMetadata();
  }

  private register(): void {
    const host = this.host;
    const incarnationId = `${host.id}-${host.incarnation}`;
    this.controller.send<BrokerRegistrationResponse>(
      {
        type: 'BrokerRegistration',
        brokerId: host.brokerId,
        incarnationId,
        rack: host.rack,
        host: host.config['kafkasim.host'],
        port: host.config['kafkasim.port'] + host.brokerId,
      },
      (r) => {
        if (!r || r.errorCode !== 0) {
          host.schedule(1000, () => this.register(), 'broker.register-retry');
          return;
        }
        this.brokerEpoch = r.brokerEpoch;
        host.emit('broker.registered', { brokerEpoch: r.brokerEpoch });
        host.onRegistered();
        this.heartbeat();
      },
    );
  }

  private heartbeat(): void {
    const host = this.host;
    this.controller.send<BrokerHeartbeatResponse>(
      {
        type: 'BrokerHeartbeat',
        brokerId: host.brokerId,
        brokerEpoch: this.brokerEpoch,
        currentMetadataOffset: host.image.offset,
        wantFence: false,
        wantShutDown: this.wantShutDown,
      },
      (r) => {
        if (r && r.errorCode === 0) {
          if (this.fenced !== r.isFenced) host.emit(r.isFenced ? 'broker.fenced' : 'broker.unfenced');
          this.fenced = r.isFenced;
        } else if (r && r.errorCode === Errors.STALE_BROKER_EPOCH.code) {
          this.brokerEpoch = -1;
          this.register();
          return;
        }
        host.schedule(2000, () => this.heartbeat(), 'broker.heartbeat');
      },
    );
  }

  private fetchMetadata(): void {
    const host = this.host;
    const maxWaitMs = host.config['kafkasim.metadata.fetch.max.wait.ms'];
    this.controller.send<MetadataFetchResponse>(
      { type: 'MetadataFetch', replicaId: host.brokerId, fetchOffset: host.image.offset + 1, maxWaitMs },
      (r) => {
        if (!r || r.errorCode !== 0) {
          host.schedule(100, () => this.fetchMetadata(), 'broker.metadata-retry');
          return;
        }
        if (r.entries.length > 0) host.applyMetadata(r.entries);
        this.fetchMetadata();
      },
    );
  }
}
