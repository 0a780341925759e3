// The group coordinator's broker settings, with Kafka's key spellings and defaults (Kafka's GroupCoordinatorConfig,
// https://kafka.apache.org/documentation/#brokerconfigs_group.initial.rebalance.delay.ms). They are read from the
// broker's server.properties (its static configs), like the coordinator reads them from KafkaConfig.

export interface GroupCoordinatorConfig {
  /** How long the first rebalance of an Empty group waits for more members, extended while they keep coming. */
  'group.initial.rebalance.delay.ms': number;
  'group.min.session.timeout.ms': number;
  'group.max.session.timeout.ms': number;
  'group.max.size': number;
  'offsets.topic.num.partitions': number;
  'offsets.topic.replication.factor': number;
  /** How long an OffsetCommit (or group metadata write) waits for the __consumer_offsets append. */
  'offsets.commit.timeout.ms': number;
  /**
   * Kafka's CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS (5 min, not configurable): a new member's parked JoinGroup
   * is dropped after this (GroupMetadataManager, "we time out JoinGroup requests for new members").
   */
  'kafkasim.group.new.member.join.timeout.ms': number;
}

export const groupCoordinatorDefaults: Readonly<GroupCoordinatorConfig> = Object.freeze({
  'group.initial.rebalance.delay.ms': 3000,
  'group.min.session.timeout.ms': 6000,
  'group.max.session.timeout.ms': 1_800_000,
  'group.max.size': 2_147_483_647,
  'offsets.topic.num.partitions': 50,
  'offsets.topic.replication.factor': 3,
  // Kafka's OFFSETS_COMMIT_TIMEOUT_MS_DEFAULT (GroupCoordinatorConfig.java).
  'offsets.commit.timeout.ms': 5000,
  'kafkasim.group.new.member.join.timeout.ms': 300_000,
});

/** Defaults overlaid with whatever server.properties (or typed overrides) set. */
export function groupCoordinatorConfig(
  serverProperties: Readonly<Record<string, string>> = {},
  overrides: Partial<GroupCoordinatorConfig> = {},
): GroupCoordinatorConfig {
  const cfg: GroupCoordinatorConfig = { ...groupCoordinatorDefaults };
  for (const key of Object.keys(groupCoordinatorDefaults) as (keyof GroupCoordinatorConfig)[]) {
    const raw = serverProperties[key];
    if (raw !== undefined) {
      const n = Number(raw);
      if (!Number.isFinite(n) || n < 0) throw new Error(`${key} must be a non-negative number, not ${raw}`);
      cfg[key] = n;
    }
    const typed = overrides[key];
    if (typed !== undefined) cfg[key] = typed;
  }
  return cfg;
}
