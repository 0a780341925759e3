// A group member's application thread, modelled as a poll loop: poll() hands over buffered records (at most
// max.poll.records), the application processes them for a configurable time, then polls again. Group work that
// the real clients run on the application's thread (the rejoin, the callbacks, Java's auto commit) waits until
// the application is back in poll; a member that stays out of poll longer than max.poll.interval.ms leaves the
// group ("consumer poll timeout has expired", Java's ConsumerCoordinator / librdkafka's max.poll.interval.ms).
import type { Timer } from '../sim/index.ts';
import type { RecordBatch } from '../storage/index.ts';
import type { ClientFlavour } from './config.ts';
import type { ConsumedBatches } from './fetcher.ts';
import type { GroupConsumerConfig } from './group-consumer-config.ts';

/** How long the application spends on the records one poll returned. */
export interface ProcessingModel {
  perPollMs?: number;
  perRecordMs?: number;
}

/** What the poll loop needs from its member. */
export interface PollLoopHost {
  readonly flavour: ClientFlavour;
  readonly groupConfig: GroupConsumerConfig;
  processing(): ProcessingModel;
  schedule(delay: number, fn: () => void, label: string): Timer;
  trace(kind: string, fields: Record<string, unknown>): void;
  /** Nothing holds the application thread and the member is not preparing a rejoin. */
  mayDeliver(): boolean;
  /** The application got `taken` of partition `key`: count it, move the position a commit stores, tell listeners. */
  handOver(key: string, taken: ConsumedBatches): void;
  /** The fetcher may fetch again (a partition's buffer emptied). */
  kick(): void;
  stable(): boolean;
  commit(): void;
  maybeRejoin(): void;
  leaveGroup(reason: string): void;
}

interface Buffered {
  chunks: ConsumedBatches[];
}

export class PollLoop {
  /** Times the application spent longer than max.poll.interval.ms between polls. */
  pollTimeouts = 0;
  private app: 'polling' | 'processing' = 'polling';
  private pollTimeoutTimer: Timer | undefined;
  /** Java: auto.commit.interval.ms passed while the application was processing; commit at the next poll. */
  private autoCommitDue = false;
  private buffers = new Map<string, Buffered>();
  private ready: string[] = [];

  constructor(private readonly host: PollLoopHost) {}

  /** A restart: the application is in poll with nothing buffered. */
  reset(): void {
    this.buffers = new Map();
    this.ready = [];
    this.app = 'polling';
  }

  get polling(): boolean {
    return this.app === 'polling';
  }

  /** Whether records of partition `key` wait for the application (it is not fetched meanwhile). */
  hasBuffered(key: string): boolean {
    return !!this.buffers.get(key)?.chunks.length;
  }

  /** Fetched records of a partition join its buffer, and the application gets them if it is in poll. */
  buffer(key: string, c: ConsumedBatches): void {
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = { chunks: [] }));
    b.chunks.push(c);
    if (!this.ready.includes(key)) this.ready.push(key);
    this.deliverBuffered();
  }

  /** A seek: the partition's buffered records are dropped. */
  discard(key: string): void {
    this.buffers.delete(key);
    this.ready = this.ready.filter((k) => k !== key);
  }

  /** Partitions given up: their buffered records are dropped; `owned` tells which partitions stay. */
  discardAll(keys: readonly string[], owned: (key: string) => boolean): void {
    for (const key of keys) this.buffers.delete(key);
    this.ready = this.ready.filter(owned);
  }

  /** poll(): hands buffered records to the application while it is in poll and nothing holds it. */
  deliverBuffered(): void {
    const maxRecords = this.host.groupConfig['max.poll.records'];
    while (this.app === 'polling' && this.host.mayDeliver() && this.ready.length > 0) {
      let left = maxRecords;
      let handed = 0;
      while (left > 0 && this.ready.length > 0) {
        const key = this.ready[0]!;
        const b = this.buffers.get(key);
        const chunk = b?.chunks[0];
        if (!b || !chunk) {
          this.ready.shift();
          continue;
        }
        const taken = takeRecords(chunk, left);
        if (chunk.records === 0) b.chunks.shift();
        if (b.chunks.length === 0) this.ready.shift();
        left -= taken.records;
        handed += taken.records;
        this.host.handOver(key, taken);
      }
      this.host.kick();
      const processing = this.host.processing();
      const ms = (processing.perPollMs ?? 0) + (processing.perRecordMs ?? 0) * handed;
      if (handed > 0 && ms > 0) return this.startProcessing(ms);
    }
  }

  /** Auto commit: librdkafka commits from its own thread; Java only from poll (now, or at the next poll). */
  autoCommit(): void {
    if (!this.host.stable()) return;
    if (this.host.flavour === 'java' && this.app !== 'polling') {
      this.autoCommitDue = true;
      return;
    }
    this.host.commit();
  }

  private startProcessing(ms: number): void {
    this.app = 'processing';
    this.pollTimeoutTimer?.cancel();
    this.pollTimeoutTimer = this.host.schedule(
      this.host.groupConfig['max.poll.interval.ms'],
      () => this.onPollTimeout(),
      'member.poll-timeout',
    );
    this.host.schedule(ms, () => this.enterPoll(), 'member.processing');
  }

  private enterPoll(): void {
    this.app = 'polling';
    this.pollTimeoutTimer?.cancel();
    this.pollTimeoutTimer = undefined;
    // Java commits on poll once auto.commit.interval.ms has passed.
    if (this.autoCommitDue && this.host.flavour === 'java') {
      this.autoCommitDue = false;
      this.host.commit();
    }
    this.host.maybeRejoin();
    this.deliverBuffered();
  }

  private onPollTimeout(): void {
    if (this.app !== 'processing') return;
    this.pollTimeouts++;
    this.host.trace('member.poll-timeout', {
      maxPollIntervalMs: this.host.groupConfig['max.poll.interval.ms'],
    });
    this.host.leaveGroup('consumer poll timeout has expired.');
  }
}

/**
 * Takes up to `max` records from the front of a fetched chunk, leaving the rest in it. Offsets within a
 * partition are contiguous (no compaction or transaction markers here), so `fromOffset + records` is the end.
 */
function takeRecords(chunk: ConsumedBatches, max: number): ConsumedBatches {
  const n = Math.min(max, chunk.records);
  if (n === chunk.records) {
    const whole = { ...chunk };
    chunk.records = 0;
    return whole;
  }
  const from = chunk.fromOffset;
  const to = from + n;
  const bytes = chunk.bytes * (n / chunk.records);
  const batches: RecordBatch[] = chunk.batches.filter(
    (b) => b.baseOffset < to && b.baseOffset + b.count > from,
  );
  const taken: ConsumedBatches = { ...chunk, batches, fromOffset: from, records: n, bytes };
  chunk.fromOffset = to;
  chunk.records -= n;
  chunk.bytes -= bytes;
  chunk.batches = chunk.batches.filter((b) => b.baseOffset + b.count > to);
  return taken;
}
