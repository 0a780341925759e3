// The shapes the UI reads from GET /sim/snapshot (only the fields it draws).

export interface PartitionReg {
  partition: number;
  leader: number;
  leaderEpoch?: number;
  replicas: number[];
  isr: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface TopicImage {
  name: string;
  partitions: PartitionReg[];
}

export interface BrokerView {
  broker_id: number;
  status: string;
  fenced: boolean;
  broker_epoch: number;
  replicas: number;
}

export interface ControllerView {
  node: string;
  status: string;
  active: boolean;
  role: string;
  epoch: number;
  high_watermark: number | null;
  leader: number | null;
}

export interface GroupView {
  group_id: string;
  /** classic (JoinGroup/SyncGroup) or consumer (KIP-848, group.protocol=consumer). */
  type: 'classic' | 'consumer';
  state: string;
  assignor: string;
  /** Bumped by every rebalance (classic protocol); null for a consumer-protocol group or when unknown. */
  generation: number | null;
  /** A consumer-protocol group's epoch and its target assignment's; null for a classic group. */
  group_epoch: number | null;
  assignment_epoch: number | null;
  members: {
    consumer_id: string;
    client_id: string;
    assignment: { topic: string; partition: number }[];
    // A consumer-protocol member only: its epoch and MemberState, its target, what it must still give up and
    // what its target gives it that another member still owns.
    member_epoch?: number;
    member_state?: string;
    target_assignment?: { topic: string; partition: number }[];
    pending_revocation?: { topic: string; partition: number }[];
    pending_assignment?: { topic: string; partition: number }[];
  }[];
  offsets: {
    topic: string;
    partition: number;
    committed: number | null;
    log_end: number | null;
    lag: number | null;
  }[];
}

export interface WorkloadView {
  name: string;
  kind: string;
  topic: string;
  state: string;
  stats: Record<string, unknown>;
}

export interface LinkCount {
  from: string;
  to: string;
  sent: number;
}

export interface Snapshot {
  cluster_id: string;
  seed: string;
  storage: string;
  scenario: string | null;
  clock: {
    now_ms: number;
    now: string;
    speed?: number | 'max';
    paused?: boolean;
    /** Paused by itself: the lesson's next step is due. */
    at_breakpoint?: boolean;
  };
  events: number;
  trace: { hash: string; events: number };
  halted: string | null;
  controllers: ControllerView[];
  brokers: BrokerView[];
  metadata: {
    offset: number;
    /** The controller's committed registrations: `fenced` is the controller's word, which an isolated broker
     * itself does not hear. */
    brokers: Record<string, { fenced: boolean }>;
    topics: Record<string, TopicImage>;
  };
  groups: GroupView[];
  workloads: WorkloadView[];
  network: { sent: number; delivered: number; dropped: number; links: LinkCount[] };
  faults: {
    partition: string[][] | null;
    isolated: string[];
    slow: Record<string, number>;
  };
  requests: number;
  lesson?: LessonState | null;
  /** The Lake's tables, once anything used the Lake. */
  lake?: LakeView | null;
}

export interface LakeView {
  available: boolean;
  tables: {
    database: string;
    table: string;
    rows: number;
    duplicate_rows: number;
    /** Rows the sink wrote per Kafka partition (`end_offset`: one past the highest offset with a row). */
    partitions: { topic: string; partition: number; rows: number; end_offset: number }[];
  }[];
}

export interface LessonStep {
  index: number;
  label: string | null;
  action: string;
  note: string | null;
  wait: string | null;
  due_ms: number | null;
  status: string;
}

export interface LessonClient {
  name: string;
  started: boolean;
  stats: Record<string, number>;
}

export interface LessonState {
  scenario: string;
  clients: LessonClient[];
  description: string;
  steps: LessonStep[];
  next: number;
  holds: boolean | null;
  output: string[];
}

export interface TraceEvent {
  t: number;
  kind: string;
  node?: string;
  [field: string]: unknown;
}
