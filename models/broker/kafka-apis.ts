// The broker's request dispatcher (Kafka's KafkaApis): routes each request to the part that serves it, and
// answers the metadata-only requests (Metadata, ListOffsets, DescribeConfigs) from the broker's image.

import type { GroupCoordinator } from '../group/index.ts';
import { describeTopicConfigs } from '../metadata/index.ts';
import {
  type BrokerRequest,
  type DescribeConfigsRequest,
  type DescribeConfigsResponse,
  Errors,
  type FetchRequest,
  type FetchResponse,
  isGroupRequest,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type MetadataRequest,
  type MetadataResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../protocol/index.ts';
import type { BrokerCore } from './broker-core.ts';
import { appendRecords } from './delayed-produce.ts';
import type { FetchPurgatory } from './fetch-purgatory.ts';
import type { FetchSessionCache } from './fetch-session.ts';
import type { BrokerLoadModel } from './load-model.ts';
import { batchBytes, type LogReader } from './read-from-log.ts';
import type { ReplicaManager } from './replica-manager.ts';

type Reply = (response: unknown, sendDelayMs?: number) => void;
type FetchReply = (response: FetchResponse, sendDelayMs?: number) => void;

export interface ApisParts {
  readonly replicaManager: ReplicaManager;
  readonly reader: LogReader;
  readonly purgatory: FetchPurgatory;
  readonly sessions: FetchSessionCache;
  readonly load: BrokerLoadModel;
  readonly groupCoordinator: GroupCoordinator;
}

export class KafkaApis {
  constructor(
    private readonly core: BrokerCore,
    private readonly parts: ApisParts,
  ) {}

  handle(req: BrokerRequest, done: Reply): void {
    if (isGroupRequest(req)) return this.parts.groupCoordinator.handle(req, done);
    switch (req.type) {
      case 'Produce':
        return this.handleProduce(req, done);
      case 'Fetch':
        return this.handleFetch(req, done);
      case 'Metadata':
        return done(this.handleMetadata(req));
      case 'ListOffsets':
        return done(this.handleListOffsets(req));
      case 'DescribeConfigs':
        return done(this.handleDescribeConfigs(req));
      default:
        return done({
          errorCode: Errors.INVALID_REQUEST.code,
          errorMessage: `unsupported request ${(req as { type: string }).type}`,
        });
    }
  }

  /** A produce is appended after the load model's processing delay. */
  handleProduce(req: ProduceRequest, done: (response: ProduceResponse) => void): void {
    let bytes = 0;
    for (const p of req.partitions) bytes += p.batch.bytes;
    const { replicaManager } = this.parts;
    this.core.schedule(
      this.parts.load.produceDelay(bytes),
      () => appendRecords(this.core, replicaManager, (key) => replicaManager.wake(key), req, done),
      'broker.produce',
    );
  }

  private handleFetch(req: FetchRequest, done: FetchReply): void {
    // A fetch in (or opening) a session (KIP-227); without a session epoch it is a sessionless full fetch.
    if ((req.sessionEpoch ?? -1) >= 0 || (req.sessionId ?? 0) !== 0)
      return this.parts.sessions.handle(req, done);
    const now = this.parts.reader.tryFetch(req, req.maxWaitMs <= 0);
    if (now) return this.sendFetch(now, done);
    this.parts.purgatory.park(req, done);
  }

  /** Sends a fetch answer; its bytes queue on the broker's network-out capacity (time added to the network latency). */
  sendFetch(res: FetchResponse, done: FetchReply): void {
    let bytes = 0;
    const parts = res.partitions;
    for (let i = 0; i < parts.length; i++) bytes += batchBytes(parts[i]!.batches);
    if (bytes === 0) return done(res);
    done(res, this.parts.load.sendDelay(bytes));
  }

  private handleMetadata(req: MetadataRequest): MetadataResponse {
    const img = this.core.image;
    const brokers = Object.values(img.brokers)
      .filter((b) => !b.fenced)
      .map((b) => ({ brokerId: b.brokerId, host: b.host, port: b.port, rack: b.rack ?? null }))
      .sort((a, b) => a.brokerId - b.brokerId);
    const names = req.topics ?? Object.keys(img.topics).sort();
    const topics = names.map((name) => {
      const t = img.topics[name];
      if (!t)
        return { name, topicId: null, errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code, partitions: [] };
      return {
        name,
        topicId: t.topicId,
        errorCode: 0,
        partitions: t.partitions.map((reg, p) => ({
          partition: p,
          errorCode: reg.leader < 0 ? Errors.LEADER_NOT_AVAILABLE.code : 0,
          leader: reg.leader,
          leaderEpoch: reg.leaderEpoch,
          replicas: [...reg.replicas],
          isr: [...reg.isr],
        })),
      };
    });
    return { brokers, controllerId: -1, topics, metadataOffset: img.offset };
  }

  private handleListOffsets(req: ListOffsetsRequest): ListOffsetsResponse {
    const { replicaManager } = this.parts;
    return {
      partitions: req.partitions.map(({ topic, partition, timestamp }) => {
        const r = replicaManager.findReplica(topic, partition);
        if (!this.core.image.topics[topic])
          return {
            topic,
            partition,
            errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
            offset: -1,
            leaderEpoch: -1,
          };
        if (!r || r.role !== 'leader')
          return {
            topic,
            partition,
            errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
            offset: -1,
            leaderEpoch: -1,
          };
        const offset = timestamp === -2 ? r.log.logStartOffset : r.log.highWatermark;
        return { topic, partition, errorCode: 0, offset, leaderEpoch: r.leaderEpoch };
      }),
    };
  }

  private handleDescribeConfigs(req: DescribeConfigsRequest): DescribeConfigsResponse {
    const { image, staticConfigs } = this.core;
    return {
      resources: req.resources.map((res) => {
        if (res.resourceType === 'TOPIC') {
          if (!image.topics[res.resourceName]) {
            return {
              ...res,
              errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
              errorMessage: `Topic '${res.resourceName}' does not exist.`,
              configs: [],
            };
          }
          const configs = describeTopicConfigs(image, res.resourceName, staticConfigs).map((c) => ({
            ...c,
            isDefault: c.source === 'DEFAULT_CONFIG',
          }));
          return { ...res, errorCode: 0, configs };
        }
        const overrides = image.configs.broker[res.resourceName] ?? {};
        const configs = Object.entries({ ...staticConfigs, ...overrides })
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, value]) => ({
            name,
            value,
            source: (name in overrides ? 'DYNAMIC_BROKER_CONFIG' : 'STATIC_BROKER_CONFIG') as
              | 'DYNAMIC_BROKER_CONFIG'
              | 'STATIC_BROKER_CONFIG',
            isDefault: false,
          }));
        return { ...res, errorCode: 0, configs };
      }),
    };
  }
}
