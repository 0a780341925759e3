import { ExitCode, KafkasimError } from '../sim/index.ts';
import { configMap, dictionary } from './config-map.ts';
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
  /** The offset of the RegisterBrokerRecord that created this registration (ClusterControlManager.registerBroker). */
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

const EMPTY_IMAGE: MetadataImage = deepFreeze({
  offset: -1,
  brokers: {},
  topics: {},
  topicNamesById: {},
  // Config dictionaries have no prototype (config-map.ts); copies keep it so.
  configs: { topic: dictionary(), broker: dictionary() },
  features: {},
});

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
 * shares every part the entries did not change (copy on write: a topic's partition list is copied once per
 * call however many of its partitions change, so replaying a 100,000-partition topic's creation is linear).
 *
 * Offsets must be strictly increasing and above `image.offset`; they need not be contiguous, because
 * Raft control records (LeaderChange) take offsets in the metadata log too.
 */
export function replay(image: MetadataImage, entries: readonly LogEntry[]): MetadataImage {
  return replayDelta(image, entries).image;
}

/** What a replay changed (Kafka's MetadataDelta): the topics and partitions that are new objects. */
export interface ImageDelta {
  readonly image: MetadataImage;
  /** Per topic name, the partition ids whose registration was written (in the order first written). */
  readonly changedPartitions: ReadonlyMap<string, readonly number[]>;
}

/**
 * Replays already made, by base image and the entries' records. Every broker replays the same committed log, mostly
 * in lockstep, and replay is pure: the first to replay a span makes the image and the others share it (one image,
 * not one per broker, which is what keeps 100 brokers x 100,000 partitions in memory). Keyed by object identity
 * (the base image, the first and last record), so entries that are not the same records never match.
 */
const replayed = new WeakMap<
  MetadataImage,
  WeakMap<MetadataRecord, { first: MetadataRecord; count: number; delta: ImageDelta }>
>();

/** The image first made ending with a given (frozen, logged) record: see replayDelta. */
const canonical = new WeakMap<MetadataRecord, MetadataImage>();

/** `replay`, also saying which partitions changed, so that a reader acts on them without scanning the rest. */
export function replayDelta(image: MetadataImage, entries: readonly LogEntry[]): ImageDelta {
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
  if (entries.length === 0) return { image, changedPartitions: new Map() };
  const first = entries[0]!.record;
  const last = entries[entries.length - 1]!.record;
  let byLast = replayed.get(image);
  const hit = byLast?.get(last);
  if (hit && hit.first === first && hit.count === entries.length && hit.delta.image.offset === previous)
    return hit.delta;
  const b = new ImageBuilder(image);
  for (const entry of entries) applyRecord(b, entry.offset, entry.record);
  let built = b.build(previous);
  // Brokers that started a few records apart replay different spans, so their images would stay distinct
  // objects forever. A metadata log clones and freezes every record it appends, so the same frozen record at the
  // same offset means the same committed log up to there, and the images are equal: share the first one made.
  if (Object.isFrozen(last)) {
    const known = canonical.get(last);
    if (known && known.offset === previous) built = known;
    else canonical.set(last, built);
  }
  const delta: ImageDelta = { image: built, changedPartitions: b.changedPartitions };
  if (!byLast) replayed.set(image, (byLast = new WeakMap()));
  byLast.set(last, { first, count: entries.length, delta });
  return delta;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type MutableTopic = { name: string; topicId: string; partitions: PartitionRegistration[] };

/**
 * The image being built: each part is copied the first time a record writes it, and what was copied or made
 * is frozen at the end (what was shared stays as it was, frozen already).
 */
class ImageBuilder {
  private brokers: Record<number, BrokerRegistration> | undefined;
  private topics: Record<string, TopicImage> | undefined;
  private topicNamesById: Record<string, string> | undefined;
  private configTopic: Record<string, Readonly<Record<string, string>>> | undefined;
  private configBroker: Record<string, Readonly<Record<string, string>>> | undefined;
  private features: Record<string, number> | undefined;
  /** Objects made in this replay (mutable until build freezes them). */
  private readonly made = new Set<object>();
  readonly changedPartitions = new Map<string, number[]>();

  constructor(private readonly base: MetadataImage) {}

  get brokersView(): Readonly<Record<number, BrokerRegistration>> {
    return this.brokers ?? this.base.brokers;
  }
  get topicsView(): Readonly<Record<string, TopicImage>> {
    return this.topics ?? this.base.topics;
  }
  get namesView(): Readonly<Record<string, string>> {
    return this.topicNamesById ?? this.base.topicNamesById;
  }
  get featuresView(): Readonly<Record<string, number>> {
    return this.features ?? this.base.features;
  }
  configsView(kind: 'topic' | 'broker'): Readonly<Record<string, Readonly<Record<string, string>>>> {
    if (kind === 'topic') return this.configTopic ?? this.base.configs.topic;
    return this.configBroker ?? this.base.configs.broker;
  }

  writableBrokers(): Record<number, BrokerRegistration> {
    this.brokers ??= this.copy(this.base.brokers);
    return this.brokers;
  }
  writableTopics(): Record<string, TopicImage> {
    this.topics ??= this.copy(this.base.topics);
    return this.topics;
  }
  writableNames(): Record<string, string> {
    this.topicNamesById ??= this.copy(this.base.topicNamesById);
    return this.topicNamesById;
  }
  writableFeatures(): Record<string, number> {
    this.features ??= this.copy(this.base.features);
    return this.features;
  }
  writableConfigs(kind: 'topic' | 'broker'): Record<string, Readonly<Record<string, string>>> {
    if (kind === 'topic') return (this.configTopic ??= this.copy(this.base.configs.topic));
    return (this.configBroker ??= this.copy(this.base.configs.broker));
  }

  /** A copy of `o` this replay may write (objects made here are written in place). */
  writable<T extends object>(o: T): Mutable<T> {
    return (this.made.has(o) ? o : this.copy(o)) as Mutable<T>;
  }

  /** The topic `name`, writable (its partition list too). */
  writableTopic(name: string): MutableTopic {
    const topics = this.writableTopics();
    const t = topics[name]!;
    if (this.made.has(t)) return t as MutableTopic;
    const copy: MutableTopic = { name: t.name, topicId: t.topicId, partitions: t.partitions.slice() };
    this.made.add(copy);
    this.made.add(copy.partitions);
    topics[name] = copy;
    return copy;
  }

  /** A container this replay made and may still write (frozen by build). */
  made_<T extends object>(o: T): T {
    this.made.add(o);
    return o;
  }

  notePartition(topic: string, partition: number): void {
    let list = this.changedPartitions.get(topic);
    if (!list) this.changedPartitions.set(topic, (list = []));
    list.push(partition);
  }

  private copy<T extends object>(o: T): T {
    // Keeps the prototype: config dictionaries stay null-prototype (config-map.ts).
    const c = (Array.isArray(o) ? o.slice() : Object.assign(Object.create(Object.getPrototypeOf(o)), o)) as T;
    this.made.add(c);
    return c;
  }

  build(offset: number): MetadataImage {
    const base = this.base;
    const configs =
      this.configTopic || this.configBroker
        ? { topic: this.configTopic ?? base.configs.topic, broker: this.configBroker ?? base.configs.broker }
        : base.configs;
    const image: MetadataImage = {
      offset,
      brokers: this.brokers ?? base.brokers,
      topics: this.topics ?? base.topics,
      topicNamesById: this.topicNamesById ?? base.topicNamesById,
      configs,
      features: this.features ?? base.features,
    };
    for (const o of this.made) Object.freeze(o);
    if (configs !== base.configs) Object.freeze(configs);
    return Object.freeze(image);
  }
}

const NO_BROKERS: readonly number[] = Object.freeze([]);

/**
 * A frozen copy of a record's list (the record itself stays unfrozen: it is the caller's). A list already frozen
 * (a metadata log's records are frozen copies) can never change, so the image shares it, and every empty list is
 * one: a replay of 100,000 logged PartitionRecords copied 400,000 arrays, most of them empty.
 */
function frozenCopy(list: readonly number[]): readonly number[] {
  if (list.length === 0) return NO_BROKERS;
  return Object.isFrozen(list) ? list : Object.freeze(list.slice());
}

/** Freezes an object and everything reachable from it (for images built by hand, such as the empty one). */
function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

function applyRecord(b: ImageBuilder, offset: number, record: MetadataRecord): void {
  const fail: (reason: string) => never = (reason) => {
    throw new MetadataReplayError(offset, record, reason);
  };
  switch (record.type) {
    case 'RegisterBrokerRecord':
      registerBroker(b, offset, record);
      return;
    case 'UnregisterBrokerRecord': {
      const current = own(b.brokersView, record.brokerId);
      if (current === undefined) fail(`no broker ${record.brokerId} is registered`);
      if (current.brokerEpoch !== record.brokerEpoch)
        fail(`broker ${record.brokerId} is registered with epoch ${current.brokerEpoch}`);
      delete b.writableBrokers()[record.brokerId];
      return;
    }
    case 'BrokerRegistrationChangeRecord':
      changeBroker(b, record, fail);
      return;
    case 'TopicRecord': {
      // Maps are plain objects; a '__proto__' key would rewrite the prototype instead of adding a topic.
      if (record.name === '__proto__' || record.topicId === '__proto__')
        fail('kafkasim cannot hold that name');
      if (own(b.topicsView, record.name) !== undefined) fail(`topic '${record.name}' already exists`);
      const names = b.namesView;
      if (own(names, record.topicId) !== undefined)
        fail(`topic id ${record.topicId} already names '${names[record.topicId]}'`);
      const partitions = b.made_<PartitionRegistration[]>([]);
      b.writableTopics()[record.name] = b.made_({ name: record.name, topicId: record.topicId, partitions });
      b.writableNames()[record.topicId] = record.name;
      return;
    }
    case 'PartitionRecord':
      putPartition(b, record, fail);
      return;
    case 'PartitionChangeRecord':
      changePartition(b, record, fail);
      return;
    case 'RemoveTopicRecord': {
      const name = own(b.namesView, record.topicId);
      if (name === undefined) fail(`no topic has id ${record.topicId}`);
      delete b.writableTopics()[name];
      delete b.writableNames()[record.topicId];
      b.changedPartitions.delete(name);
      // Kafka's ReplicationControlManager drops the topic's configs along with it.
      if (Object.hasOwn(b.configsView('topic'), name)) delete b.writableConfigs('topic')[name];
      return;
    }
    case 'ConfigRecord':
      applyConfig(b, record, fail);
      return;
    case 'FeatureLevelRecord':
      if (record.featureLevel === 0) {
        if (Object.hasOwn(b.featuresView, record.name)) delete b.writableFeatures()[record.name];
      } else if (b.featuresView[record.name] !== record.featureLevel) {
        b.writableFeatures()[record.name] = record.featureLevel;
      }
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
function own<V>(map: Readonly<Record<string | number, V>>, key: string | number): V | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function registerBroker(b: ImageBuilder, offset: number, record: RegisterBrokerRecord): void {
  // A re-registration replaces the old one; the controller decides whether it is allowed.
  b.writableBrokers()[record.brokerId] = b.made_({
    brokerId: record.brokerId,
    incarnationId: record.incarnationId,
    brokerEpoch: offset,
    rack: record.rack ?? null,
    host: record.host,
    port: record.port,
    fenced: record.fenced,
    inControlledShutdown: false,
  });
}

function changeBroker(
  b: ImageBuilder,
  record: BrokerRegistrationChangeRecord,
  fail: (reason: string) => never,
): void {
  const broker = own(b.brokersView, record.brokerId);
  if (broker === undefined) fail(`no broker ${record.brokerId} is registered`);
  if (broker.brokerEpoch !== record.brokerEpoch)
    fail(`broker ${record.brokerId} is registered with epoch ${broker.brokerEpoch}`);
  let fenced = broker.fenced;
  if (record.fenced === 1) fenced = true;
  else if (record.fenced === -1) fenced = false;
  else if (record.fenced !== 0) fail(`fenced must be 1, -1 or 0, not ${record.fenced}`);
  let inControlledShutdown = broker.inControlledShutdown;
  if (record.inControlledShutdown === 1) inControlledShutdown = true;
  else if (record.inControlledShutdown !== undefined && record.inControlledShutdown !== 0)
    fail(`inControlledShutdown must be 0 or 1, not ${record.inControlledShutdown}`);
  // Writing a value a registration already has changes nothing (the registration stays the same object).
  if (fenced === broker.fenced && inControlledShutdown === broker.inControlledShutdown) return;
  const w = b.writable(broker);
  w.fenced = fenced;
  w.inControlledShutdown = inControlledShutdown;
  b.writableBrokers()[record.brokerId] = w;
}

function topicNameById(b: ImageBuilder, topicId: string, fail: (reason: string) => never): string {
  const name = own(b.namesView, topicId);
  if (name === undefined) fail(`no topic has id ${topicId}`);
  return name;
}

function putPartition(b: ImageBuilder, record: PartitionRecord, fail: (reason: string) => never): void {
  const name = topicNameById(b, record.topicId, fail);
  const id = record.partitionId;
  const current = b.topicsView[name]!;
  // Replacing an existing partition is allowed (snapshots restate partitions); a hole is not.
  if (!Number.isInteger(id) || id < 0 || id > current.partitions.length)
    fail(`topic '${current.name}' has ${current.partitions.length} partition(s); cannot add partition ${id}`);
  const topic = b.writableTopic(name);
  // Arrays are copied so that freezing the image never freezes the caller's record.
  // Registrations are frozen as made: a later record of the same replay that changes one copies it.
  topic.partitions[id] = Object.freeze({
    partition: id,
    replicas: frozenCopy(record.replicas),
    isr: frozenCopy(record.isr),
    removingReplicas: frozenCopy(record.removingReplicas),
    addingReplicas: frozenCopy(record.addingReplicas),
    leader: record.leader,
    leaderEpoch: record.leaderEpoch,
    partitionEpoch: record.partitionEpoch,
  });
  b.notePartition(name, id);
}

/** Kafka's `PartitionRegistration.merge`: absent fields stay, any change bumps partitionEpoch. */
function changePartition(
  b: ImageBuilder,
  record: PartitionChangeRecord,
  fail: (reason: string) => never,
): void {
  const name = topicNameById(b, record.topicId, fail);
  const current = b.topicsView[name]!.partitions[record.partitionId];
  if (current === undefined) fail(`topic '${name}' has no partition ${record.partitionId}`);
  const topic = b.writableTopic(name);
  const partition: Mutable<PartitionRegistration> = { ...current };
  if (record.replicas !== undefined) partition.replicas = frozenCopy(record.replicas);
  if (record.isr !== undefined) partition.isr = frozenCopy(record.isr);
  if (record.removingReplicas !== undefined) partition.removingReplicas = frozenCopy(record.removingReplicas);
  if (record.addingReplicas !== undefined) partition.addingReplicas = frozenCopy(record.addingReplicas);
  // A present leader bumps the epoch even if unchanged: the controller relies on that to fence replicas it
  // removes in a reassignment (Kafka's PartitionChangeBuilder bumps the leader epoch on a replica removal).
  if (record.leader !== undefined && record.leader !== NO_LEADER_CHANGE) {
    partition.leader = record.leader;
    partition.leaderEpoch += 1;
  }
  partition.partitionEpoch += 1;
  topic.partitions[record.partitionId] = Object.freeze(partition);
  b.notePartition(name, record.partitionId);
}

function applyConfig(b: ImageBuilder, record: ConfigRecord, fail: (reason: string) => never): void {
  let kind: 'topic' | 'broker';
  if (record.resourceType === 'TOPIC') {
    // Kafka writes a new topic's ConfigRecords right after its TopicRecord, so the topic must exist.
    if (own(b.topicsView, record.resourceName) === undefined) fail(`no topic '${record.resourceName}'`);
    kind = 'topic';
  } else if (record.resourceType === 'BROKER') {
    // Broker configs may precede the broker's registration (Kafka allows it), so only the name's form is checked.
    if (record.resourceName !== '' && !/^\d+$/.test(record.resourceName))
      fail(`broker config resource '${record.resourceName}' is neither '' nor a broker id`);
    kind = 'broker';
  } else {
    fail(`unknown resourceType ${String(record.resourceType)}`);
  }
  const view = kind === 'topic' ? b.configsView('topic') : b.configsView('broker');
  const current = own(view, record.resourceName);
  if (record.value === null) {
    if (current === undefined || !Object.hasOwn(current, record.name)) return;
    const resources = b.writableConfigs(kind);
    const w = b.writable(current) as Record<string, string>;
    delete w[record.name];
    // Like Kafka's ConfigurationsImage, a resource with no overrides left disappears.
    if (Object.keys(w).length === 0) delete resources[record.resourceName];
    else resources[record.resourceName] = w;
  } else if (current === undefined) {
    b.writableConfigs(kind)[record.resourceName] = b.made_(configMap([[record.name, record.value]]));
  } else if (current[record.name] !== record.value || !Object.hasOwn(current, record.name)) {
    const w = b.writable(current) as Record<string, string>;
    w[record.name] = record.value;
    b.writableConfigs(kind)[record.resourceName] = w;
  }
}
