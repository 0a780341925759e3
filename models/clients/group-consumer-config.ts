// A group member's settings, with the real clients' key spellings and defaults in two flavours, on top of the
// assign-mode consumer settings. Facts: apache/kafka ConsumerConfig.java and librdkafka CONFIGURATION.md
// (defaults, and the metadata refresh: metadata.max.age.ms, topic.metadata.refresh.interval.ms).
import {
  type ClientFlavour,
  type ConsumerConfig,
  type ConsumerConfigInput,
  consumerConfig,
} from './config.ts';

export interface GroupConsumerConfig extends ConsumerConfig {
  'group.id': string;
  /** Reported by the coordinator (--members GROUP-INSTANCE-ID); static membership is not modelled further. */
  'group.instance.id': string | null;
  'session.timeout.ms': number;
  'heartbeat.interval.ms': number;
  /** Also the JoinGroup rebalance timeout: how long the coordinator waits for this member to rejoin. */
  'max.poll.interval.ms': number;
  'enable.auto.commit': boolean;
  'auto.commit.interval.ms': number;
  /**
   * Java: records one poll() returns at most. librdkafka has no such key (the application polls one message at
   * a time); kafkasim uses it for both as the unit of "processing time per poll".
   */
  'max.poll.records': number;
  /** Assignor (protocol) names in preference order, e.g. ['range', 'cooperative-sticky']. */
  'partition.assignment.strategy': string[];
  /**
   * 'classic' (JoinGroup/SyncGroup, client-side assignors) or 'consumer' (KIP-848: ConsumerGroupHeartbeat, the
   * coordinator assigns, and decides the heartbeat interval and session timeout).
   */
  'group.protocol': 'classic' | 'consumer';
  /** group.protocol=consumer: the server-side assignor to ask for ('uniform', 'range'); null = the broker's default. */
  'group.remote.assignor': string | null;
}

export type GroupConsumerConfigInput = ConsumerConfigInput &
  Partial<Omit<GroupConsumerConfig, keyof ConsumerConfig | 'partition.assignment.strategy'>> & {
    /** A list, a comma-separated string (librdkafka), or Java class names (org.apache...RangeAssignor). */
    'partition.assignment.strategy'?: string | readonly string[];
    'group.id'?: string;
  };

const javaGroupDefaults = {
  'group.instance.id': null,
  'session.timeout.ms': 45_000,
  'heartbeat.interval.ms': 3000,
  'max.poll.interval.ms': 300_000,
  'enable.auto.commit': true,
  'auto.commit.interval.ms': 5000,
  'max.poll.records': 500,
  // [RangeAssignor, CooperativeStickyAssignor] since Kafka 3.0 (KIP-726): range is chosen, the protocol is EAGER.
  'partition.assignment.strategy': ['range', 'cooperative-sticky'],
  'group.protocol': 'classic',
  'group.remote.assignor': null,
} as const;

const librdkafkaGroupDefaults = {
  ...javaGroupDefaults,
  'partition.assignment.strategy': ['range', 'roundrobin'],
} as const;

const JAVA_ASSIGNOR_CLASSES: Readonly<Record<string, string>> = {
  RangeAssignor: 'range',
  RoundRobinAssignor: 'roundrobin',
  StickyAssignor: 'sticky',
  CooperativeStickyAssignor: 'cooperative-sticky',
};

/** Strategy names from a list, a comma-separated string or Java class names. */
export function strategyNames(input: string | readonly string[]): string[] {
  const list = typeof input === 'string' ? input.split(',') : [...input];
  return list
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => JAVA_ASSIGNOR_CLASSES[s.slice(s.lastIndexOf('.') + 1)] ?? s);
}

/** Defaults of the flavour, overridden by `input`, validated as the clients do. */
export function groupConsumerConfig(
  flavour: ClientFlavour,
  groupId: string,
  input: GroupConsumerConfigInput = {},
): GroupConsumerConfig {
  const { 'partition.assignment.strategy': strategy, ...rest } = input;
  const base = consumerConfig(flavour, rest);
  const defaults = flavour === 'java' ? javaGroupDefaults : librdkafkaGroupDefaults;
  const own: Partial<GroupConsumerConfig> = {};
  for (const key of Object.keys(defaults) as (keyof typeof defaults)[]) {
    if (key in rest) (own as Record<string, unknown>)[key] = (rest as Record<string, unknown>)[key];
  }
  const cfg: GroupConsumerConfig = {
    ...base,
    ...defaults,
    ...own,
    'group.id': input['group.id'] ?? groupId,
    'partition.assignment.strategy': strategy
      ? strategyNames(strategy)
      : [...defaults['partition.assignment.strategy']],
  };
  if (cfg['group.id'] === '') throw new Error('group.id must not be empty for a group member');
  checkGroupProtocol(flavour, cfg, input);
  if (cfg['partition.assignment.strategy'].length === 0)
    throw new Error('partition.assignment.strategy must name at least one assignor');
  // Java's ConsumerConfig/GroupRebalanceConfig checks.
  if (cfg['heartbeat.interval.ms'] >= cfg['session.timeout.ms'])
    throw new Error('heartbeat.interval.ms must be lower than session.timeout.ms');
  for (const k of [
    'session.timeout.ms',
    'heartbeat.interval.ms',
    'max.poll.interval.ms',
    'max.poll.records',
  ] as const)
    if (!(cfg[k] > 0)) throw new Error(`${k} must be > 0, not ${cfg[k]}`);
  return cfg;
}

/**
 * The group protocol's own checks. Java 4.0's ConsumerConfig refuses the classic protocol's client-side settings
 * with group.protocol=consumer (KAFKA-17338: "session.timeout.ms cannot be set when group.protocol=CONSUMER") and
 * a remote assignor with the classic one (checkGroupRemoteAssignor); librdkafka refuses the same keys
 * (confluentinc/librdkafka#5028).
 */
function checkGroupProtocol(
  flavour: ClientFlavour,
  cfg: GroupConsumerConfig,
  input: GroupConsumerConfigInput,
): void {
  const protocol = cfg['group.protocol'] as string;
  if (protocol !== 'classic' && protocol !== 'consumer')
    throw new Error(`group.protocol must be classic or consumer, not ${protocol}`);
  const shown = flavour === 'java' ? protocol.toUpperCase() : protocol;
  if (protocol === 'classic') {
    if (cfg['group.remote.assignor'] !== null && cfg['group.remote.assignor'] !== '')
      throw new Error(`group.remote.assignor cannot be set when group.protocol=${shown}`);
    return;
  }
  for (const key of ['session.timeout.ms', 'heartbeat.interval.ms', 'partition.assignment.strategy'] as const)
    if (input[key] !== undefined) throw new Error(`${key} cannot be set when group.protocol=${shown}`);
}
