// The broker's request dispatcher (Kafka's KafkaApis): routes each request to the part that serves it, and
// answers the metadata-only requests (Metadata, ListOffsets, DescribeConfigs) from the broker's image.

import type { GroupCoordinator } from '../group/index.ts';
import {
  describeTopicConfigs,
  type MetadataImage,
  type PartitionRegistration,
  type TopicImage,
} from '../metadata/index.ts';
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
  type MetadataPartition,
  type MetadataRequest,
  type MetadataResponse,
  type MetadataTopic,
  type OffsetForLeaderEpochRequest,
  type OffsetForLeaderEpochResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '../protocol/index.ts';
import type { PartitionLog } from '../storage/index.ts';
import type { BrokerCore } from './broker-core.ts';
import { appendRecords } from './delayed-produce.ts';
import type { FetchPurgatory } from './fetch-purgatory.ts';
import type { FetchSessionCache } from './fetch-session.ts';
import type { BrokerLoadModel } from './load-model.ts';
import { batchBytes, type LogReader } from './read-from-log.ts';
import type { ReplicaManager } from './replica-manager.ts';

type Reply = (response: unknown, sendDelayMs?: number) => void;

// Metadata answers are built from the image, which is copy on write: the parts of an answer are kept per image
// object they come from and shared by every answer (and every broker) until that object is replaced, so a
// Metadata request costs the topics it names, not a copy of every partition. Answers are read-only (frozen).
const topicAnswers = new WeakMap<TopicImage, MetadataTopic>();
const partitionAnswers = new WeakMap<PartitionRegistration, MetadataPartition>();
const brokerAnswers = new WeakMap<MetadataImage['brokers'], MetadataResponse['brokers']>();
const topicNames = new WeakMap<MetadataImage['topics'], string[]>();

function metadataTopic(t: TopicImage): MetadataTopic {
  let answer = topicAnswers.get(t);
  if (answer) return answer;
  const regs = t.partitions;
  const partitions = new Array<MetadataPartition>(regs.length);
  for (let p = 0; p < regs.length; p++) {
    const reg = regs[p]!;
    let pa = partitionAnswers.get(reg);
    if (!pa || pa.partition !== p) {
      pa = Object.freeze({
        partition: p,
        errorCode: reg.leader < 0 ? Errors.LEADER_NOT_AVAILABLE.code : 0,
        leader: reg.leader,
        leaderEpoch: reg.leaderEpoch,
        replicas: Object.isFrozen(reg.replicas) ? reg.replicas : Object.freeze([...reg.replicas]),
        isr: Object.isFrozen(reg.isr) ? reg.isr : Object.freeze([...reg.isr]),
      }) as MetadataPartition;
      partitionAnswers.set(reg, pa);
    }
    partitions[p] = pa;
  }
  answer = Object.freeze({
    name: t.name,
    topicId: t.topicId,
    errorCode: 0,
    partitions: Object.freeze(partitions) as MetadataPartition[],
  });
  topicAnswers.set(t, answer);
  return answer;
}

function liveBrokers(img: MetadataImage): MetadataResponse['brokers'] {
  let brokers = brokerAnswers.get(img.brokers);
  if (!brokers) {
    brokers = Object.values(img.brokers)
      .filter((b) => !b.fenced)
      .map((b) => Object.freeze({ brokerId: b.brokerId, host: b.host, port: b.port, rack: b.rack ?? null }))
      .sort((a, b) => a.brokerId - b.brokerId);
    Object.freeze(brokers);
    brokerAnswers.set(img.brokers, brokers);
  }
  return brokers;
}

function allTopicNames(img: MetadataImage): string[] {
  let names = topicNames.get(img.topics);
  if (!names) topicNames.set(img.topics, (names = Object.freeze(Object.keys(img.topics).sort()) as string[]));
  return names;
}
type FetchReply = (response: FetchResponse, sendDelayMs?: number) => void;

export interface ApisParts {
  readonly replicaManager: ReplicaManager;
  readonly reader: LogReader;
  readonly purgatory: FetchPurgatory;
  readonly sessions: FetchSessionCache;
  readonly load: BrokerLoadModel;
  readonly groupCoordinator: GroupCoordinator;
}

/**
 * The first committed record at or after `timestamp` (epoch ms), as UnifiedLog.fetchOffsetByTimestamp finds it for
 * a consumer: only below the high watermark (Partition.fetchOffsetForTimestamp, READ_UNCOMMITTED), the batch by its
 * largest timestamp, then the record in it; none found answers offset -1.
 */
export function offsetForTimestamp(
  log: PartitionLog,
  timestamp: number,
  startTime: number,
): { offset: number; timestamp: number; leaderEpoch: number } {
  const hw = log.highWatermark;
  for (const b of log.allBatches()) {
    if (b.baseOffset >= hw) break;
    if (b.baseOffset + b.count <= log.logStartOffset) continue;
    const times = b.recordTimestamps;
    if (!times) {
      const t = startTime + b.appendTime;
      if (t >= timestamp) return { offset: b.baseOffset, timestamp: t, leaderEpoch: b.partitionLeaderEpoch };
      continue;
    }
    for (let i = 0; i < times.length && b.baseOffset + i < hw; i++) {
      if (times[i]! >= timestamp)
        return { offset: b.baseOffset + i, timestamp: times[i]!, leaderEpoch: b.partitionLeaderEpoch };
    }
  }
  return { offset: -1, timestamp: -1, leaderEpoch: -1 };
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
      case 'OffsetForLeaderEpoch':
        return done(this.handleOffsetForLeaderEpoch(req));
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
    const names = req.topics ?? allTopicNames(img);
    const topics = new Array<MetadataTopic>(names.length);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const t = img.topics[name];
      topics[i] = t
        ? metadataTopic(t)
        : { name, topicId: null, errorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code, partitions: [] };
    }
    return { brokers: liveBrokers(img), controllerId: -1, topics, metadataOffset: img.offset };
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
        if (timestamp === -1 || timestamp === -2) {
          const offset = timestamp === -2 ? r.log.logStartOffset : r.log.highWatermark;
          return { topic, partition, errorCode: 0, offset, leaderEpoch: r.leaderEpoch, timestamp: -1 };
        }
        const found = offsetForTimestamp(r.log, timestamp, this.core.sim.startTime);
        return { topic, partition, errorCode: 0, ...found };
      }),
    };
  }

  /**
   * ReplicaManager.lastOffsetForLeaderEpoch: answered by the leader only (fetchOnlyFromLeader), after the current
   * leader epoch check (Partition.getLocalLog: FENCED_LEADER_EPOCH below, UNKNOWN_LEADER_EPOCH above).
   */
  private handleOffsetForLeaderEpoch(req: OffsetForLeaderEpochRequest): OffsetForLeaderEpochResponse {
    const { replicaManager } = this.parts;
    return {
      partitions: req.partitions.map(({ topic, partition, currentLeaderEpoch, leaderEpoch }) => {
        const fail = (code: number) => ({
          topic,
          partition,
          errorCode: code,
          leaderEpoch: -1,
          endOffset: -1,
        });
        if (!this.core.image.topics[topic]?.partitions[partition])
          return fail(Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
        const r = replicaManager.findReplica(topic, partition);
        if (!r) return fail(Errors.NOT_LEADER_OR_FOLLOWER.code);
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch < r.leaderEpoch)
          return fail(Errors.FENCED_LEADER_EPOCH.code);
        if (currentLeaderEpoch > r.leaderEpoch) return fail(Errors.UNKNOWN_LEADER_EPOCH.code);
        if (r.role !== 'leader') return fail(Errors.NOT_LEADER_OR_FOLLOWER.code);
        const end = r.log.epochEndOffsetFor(leaderEpoch);
        return { topic, partition, errorCode: 0, leaderEpoch: end.epoch, endOffset: end.endOffset };
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
