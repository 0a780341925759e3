/**
 * The Raft quorum's settings: every `controller.quorum.*` key with Kafka's default (Kafka's `QuorumConfig`,
 * https://kafka.apache.org/documentation/#controller.quorum.voters), plus the kafkasim-only model parameters.
 */

export interface QuorumConfig {
  /** Static voters as `id@host:port,...`; empty means the voters are given to the client directly. */
  'controller.quorum.voters': string;
  /** `host:port,...` to discover the quorum from (observers); empty means the voters. */
  'controller.quorum.bootstrap.servers': string;
  /** Base of the randomized election timeout: a timeout is drawn from [T, 2T). */
  'controller.quorum.election.timeout.ms': number;
  /** A follower that has not fetched successfully for this long starts an election. */
  'controller.quorum.fetch.timeout.ms': number;
  /** Upper bound of the backoff after a lost election, and the base of the EndQuorumEpoch ranking. */
  'controller.quorum.election.backoff.max.ms': number;
  'controller.quorum.request.timeout.ms': number;
  'controller.quorum.retry.backoff.ms': number;
  /** How long the leader's accumulator waits for more records before appending (and flushing) a batch. */
  'controller.quorum.append.linger.ms': number;
  /**
   * kafkasim-only: how long the leader parks an empty Fetch. Kafka's KRaft hard-codes 500 ms
   * (`KafkaRaftClient.MAX_FETCH_WAIT_MS`); its simulation test uses 100.
   */
  'kafkasim.raft.fetch.max.wait.ms': number;
  /**
   * kafkasim-only: the KAFKA-10533 flush guarantees. true: the leader counts itself only up to its flushed
   * offset and voter followers flush after every append. false: the behaviour before the fix, where nothing is
   * flushed on the append path and unflushed data reaches the disk only by OS writeback (or a clean close).
   */
  'kafkasim.raft.flush.enable': boolean;
  /**
   * kafkasim-only: how long writing a batch to the log takes (the page-cache write of `FileRecords.append`), on the
   * leader after its accumulator drains and on a follower after a Fetch answer, before the log holds it. 0: at once.
   */
  'kafkasim.raft.append.ms': number;
  /**
   * kafkasim-only: how long a flush takes (the fsync of `ReplicatedLog.flush`), with the flush guarantees on: the
   * leader's Raft thread appends, answers the parked fetches, then flushes (`KafkaRaftClient.maybeAppendBatches`,
   * `flushLeaderLog`) and only then counts the records for itself and drains again; a voter flushes after its
   * append, before its next Fetch. 0: at once.
   */
  'kafkasim.raft.fsync.ms': number;
  /**
   * kafkasim-only: with the flush guarantees off, how often the OS looks for dirty pages to write back. Linux wakes
   * its flusher every `vm.dirty_writeback_centisecs` (500 = 5 s, https://docs.kernel.org/admin-guide/sysctl/vm.html).
   */
  'kafkasim.raft.os.writeback.ms': number;
  /**
   * kafkasim-only: with the flush guarantees off, how old dirty data must be before the flusher writes it back:
   * `vm.dirty_expire_centisecs` (3000 = 30 s, same page). Unflushed records stay in the page cache, lost on a
   * crash, for up to this long plus one writeback interval.
   */
  'kafkasim.raft.os.dirty.expire.ms': number;
  /**
   * kafkasim-only: KIP-996 pre-vote. Kafka turns it on when every voter supports it; here it is a switch, off by
   * default, so that the behaviour without pre-vote (Kafka 3.9) is the default.
   */
  'kafkasim.raft.pre.vote.enable': boolean;
}

export const DEFAULT_QUORUM_CONFIG: Readonly<QuorumConfig> = Object.freeze({
  'controller.quorum.voters': '',
  'controller.quorum.bootstrap.servers': '',
  'controller.quorum.election.timeout.ms': 1000,
  'controller.quorum.fetch.timeout.ms': 2000,
  'controller.quorum.election.backoff.max.ms': 1000,
  'controller.quorum.request.timeout.ms': 2000,
  'controller.quorum.retry.backoff.ms': 20,
  'controller.quorum.append.linger.ms': 25,
  'kafkasim.raft.fetch.max.wait.ms': 500,
  'kafkasim.raft.flush.enable': true,
  'kafkasim.raft.append.ms': 0,
  'kafkasim.raft.fsync.ms': 0,
  'kafkasim.raft.os.writeback.ms': 5000,
  'kafkasim.raft.os.dirty.expire.ms': 30_000,
  'kafkasim.raft.pre.vote.enable': false,
});

/**
 * The constants of Kafka's RaftEventSimulationTest (raft/src/test/java/org/apache/kafka/raft/), as overrides of the
 * defaults.
 */
export const SIMULATION_TEST_QUORUM_CONFIG: Readonly<Partial<QuorumConfig>> = Object.freeze({
  'controller.quorum.election.timeout.ms': 1000,
  // The test passes ELECTION_JITTER_MS = 100 as election.backoff.max.ms.
  'controller.quorum.election.backoff.max.ms': 100,
  'controller.quorum.fetch.timeout.ms': 3000,
  'controller.quorum.retry.backoff.ms': 50,
  'controller.quorum.request.timeout.ms': 3000,
  'kafkasim.raft.fetch.max.wait.ms': 100,
  'controller.quorum.append.linger.ms': 0,
});

/** Defaults overlaid with `overrides`; throws on an unknown key or a value of the wrong type or range. */
export function resolveQuorumConfig(overrides: Partial<QuorumConfig> = {}): QuorumConfig {
  const config: QuorumConfig = { ...DEFAULT_QUORUM_CONFIG };
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(DEFAULT_QUORUM_CONFIG, key)) {
      throw new Error(
        `unknown quorum config '${key}' (known: ${Object.keys(DEFAULT_QUORUM_CONFIG).join(', ')})`,
      );
    }
    if (value === undefined) continue;
    const k = key as keyof QuorumConfig;
    const expected = typeof DEFAULT_QUORUM_CONFIG[k];
    if (expected === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        throw new Error(`quorum config '${key}' must be a non-negative number, not ${value}`);
    } else if (typeof value !== expected) {
      throw new Error(`quorum config '${key}' must be a ${expected}, not ${JSON.stringify(value)}`);
    }
    (config as unknown as Record<string, unknown>)[k] = value;
  }
  for (const k of [
    'controller.quorum.election.timeout.ms',
    'controller.quorum.fetch.timeout.ms',
    'controller.quorum.request.timeout.ms',
  ] as const) {
    if (config[k] <= 0) throw new Error(`quorum config '${k}' must be > 0`);
  }
  if (config['kafkasim.raft.os.writeback.ms'] <= 0)
    throw new Error("quorum config 'kafkasim.raft.os.writeback.ms' must be > 0");
  if (config['kafkasim.raft.os.dirty.expire.ms'] < 0)
    throw new Error("quorum config 'kafkasim.raft.os.dirty.expire.ms' must be >= 0");
  parseQuorumVoters(config['controller.quorum.voters']);
  return config;
}

/** How long the log write of an append takes: append, plus the fsync when the flush guarantees are on. */
export function raftWriteMs(config: QuorumConfig, flushes: boolean): number {
  return config['kafkasim.raft.append.ms'] + (flushes ? config['kafkasim.raft.fsync.ms'] : 0);
}

export interface QuorumVoter {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

/** Parses `controller.quorum.voters` (`1@localhost:9092,2@localhost:9093`), as Kafka's QuorumConfig does. */
export function parseQuorumVoters(value: string): QuorumVoter[] {
  if (value.trim() === '') return [];
  const voters: QuorumVoter[] = [];
  for (const part of value.split(',')) {
    const m = /^\s*(\d+)@(.+):(\d+)\s*$/.exec(part);
    if (!m) {
      throw new Error(
        `Invalid value ${value} for configuration controller.quorum.voters: ` +
          `'${part.trim()}' is not of the form id@host:port`,
      );
    }
    const id = Number(m[1]);
    if (voters.some((v) => v.id === id)) throw new Error(`controller.quorum.voters lists voter ${id} twice`);
    voters.push({ id, host: m[2]!, port: Number(m[3]) });
  }
  return voters;
}
