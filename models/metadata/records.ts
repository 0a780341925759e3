/**
 * KRaft metadata records, one variant per record type the simulated controller writes.
 *
 * Field names follow Kafka's JSON schemas under `metadata/src/main/resources/common/metadata/` (camelCased),
 * with their apiKeys. Fields kafkasim does not model (endpoints lists, features, log dirs,
 * directories, ELR, leader recovery state) are left out.
 */

export interface RegisterBrokerRecord {
  readonly type: 'RegisterBrokerRecord';
  readonly brokerId: number;
  readonly incarnationId: string;
  readonly rack?: string | null;
  readonly host: string;
  readonly port: number;
  /** Kafka's schema defaults this to true; the controller always writes it so replay never guesses. */
  readonly fenced: boolean;
}

export interface UnregisterBrokerRecord {
  readonly type: 'UnregisterBrokerRecord';
  readonly brokerId: number;
  readonly brokerEpoch: number;
}

/** Kafka's BrokerRegistrationFencingChange values. */
export type FencingChange = 1 | -1 | 0;
export const FENCE: FencingChange = 1;
export const UNFENCE: FencingChange = -1;
export const FENCING_UNCHANGED: FencingChange = 0;

export interface BrokerRegistrationChangeRecord {
  readonly type: 'BrokerRegistrationChangeRecord';
  readonly brokerId: number;
  readonly brokerEpoch: number;
  /** 1 fences, -1 unfences, 0 leaves it as it is. */
  readonly fenced: FencingChange;
  /** 1 marks the broker as in controlled shutdown; 0 or absent leaves it as it is (Kafka never clears it). */
  readonly inControlledShutdown?: 0 | 1;
}

export interface TopicRecord {
  readonly type: 'TopicRecord';
  readonly name: string;
  readonly topicId: string;
}

export interface PartitionRecord {
  readonly type: 'PartitionRecord';
  readonly topicId: string;
  readonly partitionId: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly removingReplicas: readonly number[];
  readonly addingReplicas: readonly number[];
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
}

/** `leader` value meaning "no partition leader". */
export const NO_LEADER = -1;
/** `leader` value in a PartitionChangeRecord meaning "leader unchanged" (Kafka's NO_LEADER_CHANGE). */
export const NO_LEADER_CHANGE = -2;

/** Absent fields are unchanged, as Kafka's nullable fields in PartitionChangeRecord. */
export interface PartitionChangeRecord {
  readonly type: 'PartitionChangeRecord';
  readonly topicId: string;
  readonly partitionId: number;
  /** Absent or -2: unchanged; -1: no leader; any other value bumps leaderEpoch, even the same leader. */
  readonly leader?: number;
  readonly isr?: readonly number[];
  readonly replicas?: readonly number[];
  readonly removingReplicas?: readonly number[];
  readonly addingReplicas?: readonly number[];
}

export interface RemoveTopicRecord {
  readonly type: 'RemoveTopicRecord';
  readonly topicId: string;
}

export type ConfigResourceType = 'TOPIC' | 'BROKER';

export interface ConfigRecord {
  readonly type: 'ConfigRecord';
  readonly resourceType: ConfigResourceType;
  /** Topic name, broker id as a string, or '' for the cluster-wide broker default. */
  readonly resourceName: string;
  readonly name: string;
  /** null deletes the key. */
  readonly value: string | null;
}

export interface FeatureLevelRecord {
  readonly type: 'FeatureLevelRecord';
  readonly name: string;
  /** 0 removes the feature, as Kafka's FeaturesDelta does. */
  readonly featureLevel: number;
}

export interface NoOpRecord {
  readonly type: 'NoOpRecord';
}

export type MetadataRecord =
  | RegisterBrokerRecord
  | UnregisterBrokerRecord
  | BrokerRegistrationChangeRecord
  | TopicRecord
  | PartitionRecord
  | PartitionChangeRecord
  | RemoveTopicRecord
  | ConfigRecord
  | FeatureLevelRecord
  | NoOpRecord;

export type MetadataRecordType = MetadataRecord['type'];

export interface LogEntry {
  readonly offset: number;
  readonly record: MetadataRecord;
}

const API_KEYS: { readonly [K in MetadataRecordType]: number } = {
  RegisterBrokerRecord: 0,
  UnregisterBrokerRecord: 1,
  TopicRecord: 2,
  PartitionRecord: 3,
  ConfigRecord: 4,
  PartitionChangeRecord: 5,
  RemoveTopicRecord: 9,
  FeatureLevelRecord: 12,
  BrokerRegistrationChangeRecord: 17,
  NoOpRecord: 20,
};

export function apiKeyOf(record: MetadataRecord): number {
  return API_KEYS[record.type];
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function base64UrlUnpadded(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i]!;
    const b1 = i + 1 < bytes.length ? bytes[i + 1]! : 0;
    const b2 = i + 2 < bytes.length ? bytes[i + 2]! : 0;
    const n = (b0 << 16) | (b1 << 8) | b2;
    const remaining = bytes.length - i;
    out += BASE64URL[(n >> 18) & 63]! + BASE64URL[(n >> 12) & 63]!;
    if (remaining > 1) out += BASE64URL[(n >> 6) & 63]!;
    if (remaining > 2) out += BASE64URL[n & 63]!;
  }
  return out;
}

/**
 * A Kafka-style topic id: 16 bytes shown as unpadded URL-safe base64 (22 chars), as `Uuid.toString()`.
 *
 * Like `Uuid.randomUuid()` (clients `org/apache/kafka/common/Uuid.java`, via `java.util.UUID.randomUUID`)
 * the bytes carry the version-4 and IETF-variant bits, which also rules out the reserved ZERO and ONE
 * ids; an id whose text starts with '-' is redrawn because Kafka's tools would read it as a flag.
 */
export function newTopicId(nextUint32: () => number): string {
  const bytes = new Uint8Array(16);
  for (let attempt = 0; attempt < 64; attempt++) {
    for (let w = 0; w < 4; w++) {
      const word = nextUint32() >>> 0;
      bytes[w * 4] = word >>> 24;
      bytes[w * 4 + 1] = (word >>> 16) & 0xff;
      bytes[w * 4 + 2] = (word >>> 8) & 0xff;
      bytes[w * 4 + 3] = word & 0xff;
    }
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const id = base64UrlUnpadded(bytes);
    if (!id.startsWith('-')) return id;
  }
  // A fair generator starts an id with '-' 1 time in 64; 64 in a row means it is broken.
  throw new Error('newTopicId: nextUint32 keeps producing ids that start with "-"; is it random?');
}
