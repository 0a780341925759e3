// The kafka-consumer-perf-test workload (ConsumerPerformance.consume): one group member subscribed to a topic,
// counting records and bytes (key + value lengths) as poll() hands them over, and the time spent in rebalances
// (from onPartitionsRevoked, or the start, to onPartitionsAssigned). A progress row falls due at the first
// record of a poll that comes `reportingIntervalMs` or more after the previous row, and counts that record;
// the run ends after `messages` records, or when no record came for `timeoutMs`. The rows are data; a reporter
// in src/cluster prints them in the tool's format.
import type { ConsumedBatches } from './fetcher.ts';
import type { GroupConsumer } from './group-consumer.ts';

/** The producer's framing: a 61-byte v2 batch header and about 8 bytes per record. */
const BATCH_HEADER_BYTES = 61;
const RECORD_FRAMING_BYTES = 8;

export interface ConsumerPerfOptions {
  /** --messages */
  messages: number;
  /** --reporting-interval (default 5000). */
  reportingIntervalMs?: number;
  /** --timeout: the longest gap between records before giving up (default 10000). */
  timeoutMs?: number;
}

export interface ConsumerPerfProgress {
  intervalStartMs: number;
  nowMs: number;
  bytesRead: number;
  messagesRead: number;
  lastBytesRead: number;
  lastMessagesRead: number;
  joinTimeMsInInterval: number;
}

export interface ConsumerPerfResult {
  startMs: number;
  endMs: number;
  bytesRead: number;
  messagesRead: number;
  joinTimeMs: number;
  /** Fewer than --messages arrived before the timeout. */
  timedOut: boolean;
}

export class ConsumerPerfWorkload {
  readonly options: Required<ConsumerPerfOptions>;
  startMs = -1;
  messagesRead = 0;
  bytesRead = 0;
  joinTimeMs = 0;
  result: ConsumerPerfResult | undefined;
  private joinStartMs = 0;
  private joinTimeInRound = 0;
  private lastReportMs = 0;
  private lastMessages = 0;
  private lastBytes = 0;
  private lastConsumedMs = 0;
  private readonly progressListeners: ((p: ConsumerPerfProgress) => void)[] = [];
  private readonly doneListeners: ((r: ConsumerPerfResult) => void)[] = [];

  constructor(
    readonly consumer: GroupConsumer,
    options: ConsumerPerfOptions,
  ) {
    if (!(options.messages > 0)) throw new Error(`messages must be > 0, not ${options.messages}`);
    this.options = { reportingIntervalMs: 5000, timeoutMs: 10_000, ...options };
    consumer.addRebalanceListener({
      onPartitionsRevoked: () => {
        this.joinStartMs = Math.floor(consumer.sim.now);
      },
      onPartitionsAssigned: () => {
        const elapsed = Math.floor(consumer.sim.now) - this.joinStartMs;
        this.joinTimeMs += elapsed;
        this.joinTimeInRound += elapsed;
      },
    });
    consumer.onRecords((c) => this.onRecords(c));
  }

  /** The tool reads System.currentTimeMillis(): whole milliseconds. */
  private nowMs(): number {
    return Math.floor(this.consumer.sim.now);
  }

  onProgress(l: (p: ConsumerPerfProgress) => void): void {
    this.progressListeners.push(l);
  }

  onDone(l: (r: ConsumerPerfResult) => void): void {
    this.doneListeners.push(l);
  }

  /** Starts the member (the tool subscribes right away); the consumer must not have been started. */
  start(): void {
    const now = this.nowMs();
    this.startMs = now;
    this.joinStartMs = now;
    this.lastReportMs = now;
    this.lastConsumedMs = now;
    this.consumer.start();
    this.armTimeout();
  }

  private armTimeout(): void {
    const due = this.lastConsumedMs + this.options.timeoutMs;
    this.consumer.schedule(
      Math.max(0, due - this.consumer.sim.now) + 1,
      () => {
        if (this.result) return;
        if (this.nowMs() - this.lastConsumedMs > this.options.timeoutMs) this.finish(true);
        else this.armTimeout();
      },
      'perf-consumer.timeout',
    );
  }

  private onRecords(c: ConsumedBatches): void {
    if (this.result) return;
    const now = this.nowMs();
    this.lastConsumedMs = now;
    const perRecord = valueBytesPerRecord(c);
    let n = Math.min(c.records, this.options.messages - this.messagesRead);
    if (n > 0 && now - this.lastReportMs >= this.options.reportingIntervalMs) {
      // The row is printed inside the record loop, after counting the first record of this poll.
      this.messagesRead += 1;
      this.bytesRead += perRecord;
      n -= 1;
      for (const l of this.progressListeners)
        l({
          intervalStartMs: this.lastReportMs,
          nowMs: now,
          bytesRead: this.bytesRead,
          messagesRead: this.messagesRead,
          lastBytesRead: this.lastBytes,
          lastMessagesRead: this.lastMessages,
          joinTimeMsInInterval: this.joinTimeInRound,
        });
      this.joinTimeInRound = 0;
      this.lastReportMs = now;
      this.lastMessages = this.messagesRead;
      this.lastBytes = this.bytesRead;
    }
    this.messagesRead += n;
    this.bytesRead += n * perRecord;
    if (this.messagesRead >= this.options.messages) this.finish(false);
  }

  private finish(timedOut: boolean): void {
    this.result = {
      startMs: this.startMs,
      endMs: this.nowMs(),
      bytesRead: this.bytesRead,
      messagesRead: this.messagesRead,
      joinTimeMs: this.joinTimeMs,
      timedOut,
    };
    for (const l of this.doneListeners) l(this.result);
    this.consumer.close();
  }
}

/** Key + value bytes of one record: from the content when batches carry it, else from the batch framing. */
function valueBytesPerRecord(c: ConsumedBatches): number {
  let bytes = 0;
  let count = 0;
  for (const b of c.batches) {
    if (b.records) {
      for (const r of b.records) bytes += (r.key?.length ?? 0) + (r.value?.length ?? 0);
    } else {
      bytes += b.bytes - BATCH_HEADER_BYTES - RECORD_FRAMING_BYTES * b.count;
    }
    count += b.count;
  }
  return count > 0 ? bytes / count : 0;
}
