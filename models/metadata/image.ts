import { type Draft, freeze, Immer } from 'immer';
import { ExitCode, KafkasimError } from '../sim/index.ts';
import {
  type BrokerRegistrationChangeRecord,
  type ConfigRecord,
  type LogEntry,
  type MetadataRecord,
  NO_LEADER_CHANGE,
  type PartitionChangeRecord,
  type PartitionRecord,
  type RegisterBrokerRecord,
} from './records.ts';

/** What a broker registered with, plus the state later BrokerRegistrationChangeRecords set. */
export interface BrokerRegistration {
  readonly brokerId: number;
  readonly incarnationId: string;
  /** The offset of the RegisterBrokerRecord that created this registration (kraft.md §4). */
  readonly brokerEpoch: number;
  readonly rack: string | null;
  readonly host: string;
  readonly port: number;
  readonly fenced: boolean;
  readonly inControlledShutdown: boolean;
}

export interface PartitionRegistration {
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly removingReplicas: readonly number[];
  readonly addingReplicas: readonly number[];
  /** -1 when the partition has no leader. */
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
}

export interface TopicImage {
  readonly name: string;
  readonly topicId: string;
  /** Indexed by partition id; partitions are created in order, so there are no holes. */
  readonly partitions: readonly PartitionRegistration[];
}

/** Dynamic config overrides only: static broker configs and defaults live with whoever reads them. */
export interface ConfigsImage {
  readonly topic: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Keyed by broker id as a string; '' holds the cluster-wide broker default. */
  readonly broker: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface MetadataImage {
  /** Offset of the last record replayed into this image; -1 when nothing has been replayed. */
  readonly offset: number;
  readonly brokers: Readonly<Record<number, BrokerRegistration>>;
  readonly topics: Readonly<Record<string, TopicImage>>;
  readonly topicNamesById: Readonly<Record<string, string>>;
  readonly configs: ConfigsImage;
  /** Finalized feature levels (e.g. `metadata.version`), as Kafka's FeaturesImage. */
  readonly features: Readonly<Record<string, number>>;
}

// Our own instance, so that images stay frozen (safe to share between brokers, API and reports)
// whatever another module does to immer's global setAutoFreeze.
const immer = new Immer({ autoFreeze: true });

const EMPTY_IMAGE: MetadataImage = freeze(
  {
    offset: -1,
    brokers: {},
    topics: {},
    topicNamesById: {},
    configs: { topic: {}, broker: {} },
    features: {},
  },
  true,
);

export function emptyImage(): MetadataImage {
  return EMPTY_IMAGE;
}

/** A record the image cannot apply: the writer broke an invariant the controller must keep. */
export class MetadataReplayError extends KafkasimError {
  readonly code = 'METADATA_REPLAY_FAILED';
  readonly exitCode = ExitCode.internal;
  readonly offset: number;
  readonly record: MetadataRecord;

  constructor(offset: number, record: MetadataRecord, reason: string) {
    super(`cannot replay ${record.type} at offset ${offset}: ${reason} (record: ${JSON.stringify(record)})`);
    this.name = 'MetadataReplayError';
    this.offset = offset;
    this.record = record;
  }
}

/**
 * Applies committed log entries to an image, as a KRaft broker or standby controller replays
 * `MetadataDelta`s into a new `MetadataImage`. Pure: the input image is never touched, and the result
 * shares every part the entries did not change.
 *
 * Offsets must be strictly increasing and above `image.offset`; they need not be contiguous, because
 * Raft control records (LeaderChange) take offsets in the metadata log too.
 */
export function replay(image: MetadataImage, entries: readonly LogEntry[]): MetadataImage {
  let previous = image.offset;
  for (const entry of entries) {
    if (!Number.isSafeInteger(entry.offset) || entry.offset <= previous) {
      throw new Error(
        `metadata replay: offset ${entry.offset} (${entry.record.type}) must be an integer above ${previous}; ` +
          `entries must be strictly increasing and newer than the image at offset ${image.offset}`,
      );
    }
    previous = entry.offset;
  }
  if (entries.length === 0) return image;
  // One produce per batch of entries, not per record: drafting is the costly part.
  return immer.produce(image, (draft) => {
    for (const entry of entries) applyRecord(draft, entry.offset, entry.record);
    draft.offset = previous;
  });
}

function applyRecord(draft: Draft<MetadataImage>, offset: number, record: MetadataRecord): void {
  const fail: (reason: string) => never = (reason) => {
    throw new MetadataReplayError(offset, record, reason);
  };
  switch (record.type) {
    case 'RegisterBrokerRecord':
      registerBroker(draft, offset, record);
      return;
    case 'UnregisterBrokerRecord': {
      const current = own(draft.brokers, record.brokerId);
      if (current === undefined) fail(`no broker ${record.brokerId} is registered`);
      if (current.brokerEpoch !== record.brokerEpoch)
        fail(`broker ${record.brokerId} is registered with epoch ${current.brokerEpoch}`);
      delete draft.brokers[record.brokerId];
      return;
    }
    case 'BrokerRegistrationChangeRecord':
      changeBroker(draft, record, fail);
      return;
    case 'TopicRecord':
      // Maps are plain objects; a '__proto__' key would rewrite the prototype instead of adding a topic.
      if (record.name === '__proto__' || record.topicId === '__proto__')
        fail('kafkasim cannot hold that name');
      if (own(draft.topics, record.name) !== undefined) fail(`topic '${record.name}' already exists`);
      if (own(draft.topicNamesById, record.topicId) !== undefined)
        fail(`topic id ${record.topicId} already names '${draft.topicNamesById[record.topicId]}'`);
      draft.topics[record.name] = { name: record.name, topicId: record.topicId, partitions: [] };
      draft.topicNamesById[record.topicId] = record.name;
      return;
    case 'PartitionRecord':
      putPartition(draft, record, fail);
      return;
    case 'PartitionChangeRecord':
      changePartition(draft, record, fail);
      return;
    case 'RemoveTopicRecord': {
      const name = own(draft.topicNamesById, record.topicId);
      if (name === undefined) fail(`no topic has id ${record.topicId}`);
      delete draft.topics[name];
      delete draft.topicNamesById[record.topicId];
      // Kafka's ReplicationControlManager drops the topic's configs along with it.
      delete draft.configs.topic[name];
      return;
    }
    case 'ConfigRecord':
      applyConfig(draft, record, fail);
      return;
    case 'FeatureLevelRecord':
      if (record.featureLevel === 0) delete draft.features[record.name];
      else draft.features[record.name] = record.featureLevel;
      return;
    case 'NoOpRecord':
      return;
    default: {
      const unknown: never = record;
      fail(`unknown record type ${(unknown as { type: unknown }).type}`);
    }
  }
}

/** Own properties only: topic names such as 'constructor' are legal in Kafka. */
function own<V>(map: Record<string | number, V>, key: string | number): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function registerBroker(draft: Draft<MetadataImage>, offset: number, record: RegisterBrokerRecord): void {
  // A re-registration replaces the old one; the controller decides whether it is allowed.
  draft.brokers[record.brokerId] = {
    brokerId: record.brokerId,
    incarnationId: record.incarnationId,
    brokerEpoch: offset,
    rack: record.rack ?? null,
    host: record.host,
    port: record.port,
    fenced: record.fenced,
    inControlledShutdown: false,
  };
}

function changeBroker(
  draft: Draft<MetadataImage>,
  record: BrokerRegistrationChangeRecord,
  fail: (reason: string) => never,
): void {
  const broker = own(draft.brokers, record.brokerId);
  if (broker === undefined) fail(`no broker ${record.brokerId} is registered`);
  if (broker.brokerEpoch !== record.brokerEpoch)
    fail(`broker ${record.brokerId} is registered with epoch ${broker.brokerEpoch}`);
  if (record.fenced === 1) broker.fenced = true;
  else if (record.fenced === -1) broker.fenced = false;
  else if (record.fenced !== 0) fail(`fenced must be 1, -1 or 0, not ${record.fenced}`);
  if (record.inControlledShutdown === 1) broker.inControlledShutdown = true;
  else if (record.inControlledShutdown !== undefined && record.inControlledShutdown !== 0)
    fail(`inControlledShutdown must be 0 or 1, not ${record.inControlledShutdown}`);
}

function topicById(draft: Draft<MetadataImage>, topicId: string, fail: (reason: string) => never) {
  const name = own(draft.topicNamesById, topicId);
  if (name === undefined) fail(`no topic has id ${topicId}`);
  return draft.topics[name]!;
}

function putPartition(
  draft: Draft<MetadataImage>,
  record: PartitionRecord,
  fail: (reason: string) => never,
): void {
  const topic = topicById(draft, record.topicId, fail);
  const id = record.partitionId;
  // Replacing an existing partition is allowed (snapshots restate partitions); a hole is not.
  if (!Number.isInteger(id) || id < 0 || id > topic.partitions.length)
    fail(`topic '${topic.name}' has ${topic.partitions.length} partition(s); cannot add partition ${id}`);
  // Arrays are copied so that freezing the image never freezes the caller's record.
  topic.partitions[id] = {
    partition: id,
    replicas: [...record.replicas],
    isr: [...record.isr],
    removingReplicas: [...record.removingReplicas],
    addingReplicas: [...record.addingReplicas],
    leader: record.leader,
    leaderEpoch: record.leaderEpoch,
    partitionEpoch: record.partitionEpoch,
  };
}

/** Kafka's `PartitionRegistration.merge`: absent fields stay, any change bumps partitionEpoch. */
function changePartition(
  draft: Draft<MetadataImage>,
  record: PartitionChangeRecord,
  fail: (reason: string) => never,
): void {
  const topic = topicById(draft, record.topicId, fail);
  const partition = topic.partitions[record.partitionId];
  if (partition === undefined) fail(`topic '${topic.name}' has no partition ${record.partitionId}`);
  if (record.replicas !== undefined) partition.replicas = [...record.replicas];
  if (record.isr !== undefined) partition.isr = [...record.isr];
  if (record.removingReplicas !== undefined) partition.removingReplicas = [...record.removingReplicas];
  if (record.addingReplicas !== undefined) partition.addingReplicas = [...record.addingReplicas];
  // A present leader bumps the epoch even if unchanged: the controller relies on that to fence
  // replicas it removes in a reassignment (kraft.md "Removal forces a leader-epoch bump").
  if (record.leader !== undefined && record.leader !== NO_LEADER_CHANGE) {
    partition.leader = record.leader;
    partition.leaderEpoch += 1;
  }
  partition.partitionEpoch += 1;
}

function applyConfig(
  draft: Draft<MetadataImage>,
  record: ConfigRecord,
  fail: (reason: string) => never,
): void {
  let resources: Record<string, Record<string, string>>;
  if (record.resourceType === 'TOPIC') {
    // Kafka writes a new topic's ConfigRecords right after its TopicRecord, so the topic must exist.
    if (own(draft.topics, record.resourceName) === undefined) fail(`no topic '${record.resourceName}'`);
    resources = draft.configs.topic;
  } else if (record.resourceType === 'BROKER') {
    // Broker configs may precede the broker's registration (Kafka allows it), so only the name's form is checked.
    if (record.resourceName !== '' && !/^\d+$/.test(record.resourceName))
      fail(`broker config resource '${record.resourceName}' is neither '' nor a broker id`);
    resources = draft.configs.broker;
  } else {
    fail(`unknown resourceType ${String(record.resourceType)}`);
  }
  const current = own(resources, record.resourceName);
  if (record.value === null) {
    if (current === undefined) return;
    delete current[record.name];
    // Like Kafka's ConfigurationsImage, a resource with no overrides left disappears.
    if (Object.keys(current).length === 0) delete resources[record.resourceName];
  } else if (current === undefined) {
    resources[record.resourceName] = { [record.name]: record.value };
  } else {
    current[record.name] = record.value;
  }
}
