// The coordinator's settings for consumer-protocol groups (KIP-848), with Kafka's key spellings, defaults and
// checks (GroupCoordinatorConfig: CONSUMER_GROUP_*; its constructor's `require`s). The coordinator, not the
// client, decides the heartbeat interval and the session timeout of these groups. Read from the broker's
// server.properties like the classic group settings (config.ts).
// Left out: the per-group dynamic overrides (GroupConfig consumer.session.timeout.ms / consumer.heartbeat.interval.ms).

export type ConsumerGroupMigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';

export interface ConsumerGroupConfig {
  'group.consumer.session.timeout.ms': number;
  'group.consumer.min.session.timeout.ms': number;
  'group.consumer.max.session.timeout.ms': number;
  'group.consumer.heartbeat.interval.ms': number;
  'group.consumer.min.heartbeat.interval.ms': number;
  'group.consumer.max.heartbeat.interval.ms': number;
  'group.consumer.max.size': number;
  /** The server-side assignors by name; the first is the default when a member names none. */
  'group.consumer.assignors': readonly string[];
  /** Whether non-empty groups convert between the classic and the consumer protocol online. */
  'group.consumer.migration.policy': ConsumerGroupMigrationPolicy;
}

export const consumerGroupDefaults: Readonly<ConsumerGroupConfig> = Object.freeze({
  'group.consumer.session.timeout.ms': 45_000,
  'group.consumer.min.session.timeout.ms': 45_000,
  'group.consumer.max.session.timeout.ms': 60_000,
  'group.consumer.heartbeat.interval.ms': 5000,
  'group.consumer.min.heartbeat.interval.ms': 5000,
  'group.consumer.max.heartbeat.interval.ms': 15_000,
  'group.consumer.max.size': 2_147_483_647,
  // Kafka lists class names (UniformAssignor, RangeAssignor); their name() is what members ask for.
  'group.consumer.assignors': Object.freeze(['uniform', 'range']),
  'group.consumer.migration.policy': 'bidirectional',
});

const NUMERIC = [
  'group.consumer.session.timeout.ms',
  'group.consumer.min.session.timeout.ms',
  'group.consumer.max.session.timeout.ms',
  'group.consumer.heartbeat.interval.ms',
  'group.consumer.min.heartbeat.interval.ms',
  'group.consumer.max.heartbeat.interval.ms',
  'group.consumer.max.size',
] as const;

const ASSIGNOR_CLASSES: Readonly<Record<string, string>> = {
  'org.apache.kafka.coordinator.group.assignor.UniformAssignor': 'uniform',
  'org.apache.kafka.coordinator.group.assignor.RangeAssignor': 'range',
  'org.apache.kafka.coordinator.group.assignor.SimpleAssignor': 'simple',
};

const POLICIES: readonly ConsumerGroupMigrationPolicy[] = [
  'bidirectional',
  'upgrade',
  'downgrade',
  'disabled',
];

/** Defaults overlaid with server.properties (and typed overrides), then Kafka's consistency checks. */
export function consumerGroupConfig(
  serverProperties: Readonly<Record<string, string>> = {},
  overrides: Partial<ConsumerGroupConfig> = {},
): ConsumerGroupConfig {
  const cfg: ConsumerGroupConfig = { ...consumerGroupDefaults };
  for (const key of NUMERIC) {
    const raw = serverProperties[key];
    if (raw !== undefined) {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive integer, not ${raw}`);
      cfg[key] = n;
    }
  }
  const assignors = serverProperties['group.consumer.assignors'];
  if (assignors !== undefined) {
    const names = assignors
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => ASSIGNOR_CLASSES[s] ?? s);
    const unknown = names.filter((n) => n !== 'uniform' && n !== 'range');
    if (names.length === 0 || unknown.length > 0)
      throw new Error(`group.consumer.assignors must list uniform and/or range, not ${assignors}`);
    cfg['group.consumer.assignors'] = names;
  }
  const policy = serverProperties['group.consumer.migration.policy'];
  if (policy !== undefined) {
    const p = policy.toLowerCase() as ConsumerGroupMigrationPolicy;
    if (!POLICIES.includes(p))
      throw new Error(`group.consumer.migration.policy must be one of ${POLICIES.join(', ')}, not ${policy}`);
    cfg['group.consumer.migration.policy'] = p;
  }
  Object.assign(cfg, overrides);
  checkConsumerGroupConfig(cfg);
  return cfg;
}

function checkConsumerGroupConfig(c: ConsumerGroupConfig): void {
  const require = (ok: boolean, message: string) => {
    if (!ok) throw new Error(message);
  };
  const hb = 'group.consumer.heartbeat.interval.ms';
  const minHb = 'group.consumer.min.heartbeat.interval.ms';
  const maxHb = 'group.consumer.max.heartbeat.interval.ms';
  const st = 'group.consumer.session.timeout.ms';
  const minSt = 'group.consumer.min.session.timeout.ms';
  const maxSt = 'group.consumer.max.session.timeout.ms';
  require(c[maxHb] >= c[minHb], `${maxHb} must be greater than or equal to ${minHb}`);
  require(c[hb] >= c[minHb], `${hb} must be greater than or equal to ${minHb}`);
  require(c[hb] <= c[maxHb], `${hb} must be less than or equal to ${maxHb}`);
  require(c[maxSt] >= c[minSt], `${maxSt} must be greater than or equal to ${minSt}`);
  require(c[st] >= c[minSt], `${st} must be greater than or equal to ${minSt}`);
  require(c[st] <= c[maxSt], `${st} must be less than or equal to ${maxSt}`);
  require(c[hb] < c[st], `${hb} must be less than ${st}`);
}
