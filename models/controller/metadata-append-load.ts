/**
 * A steady append load on the metadata log, after the Raft test server's workload (Kafka's TestRaftServer
 * `RaftWorkload`: the leader appends records at a fixed `--throughput`) checked the way RaftEventSimulationTest's
 * ReplicatedCounter checks its log: the active controller appends NoOpRecords numbered 1, 2, 3, ... (the number
 * after the last one it has, committed or pending), and every controller checks that the numbers it reads as
 * committed are exactly the previous one plus one. A committed number that is lost, duplicated or reordered
 * by a failover shows as a broken sequence.
 *
 * NoOpRecord is Kafka's record for appending without changing the image (KIP-835 appends one periodically);
 * kafkasim's carry the number in an extra field that the image replay ignores.
 */
import type { MetadataRecord, NoOpRecord } from '../metadata/index.ts';
import type { QuorumController } from './quorum-controller.ts';

export interface CounterRecord extends NoOpRecord {
  readonly 'kafkasim.counter': number;
}

/** The counter value a committed record carries, if it is one of the load's records. */
export function counterValue(record: MetadataRecord): number | undefined {
  if (record.type !== 'NoOpRecord') return undefined;
  const value = (record as Partial<CounterRecord>)['kafkasim.counter'];
  return typeof value === 'number' ? value : undefined;
}

export interface MetadataAppendLoadOptions {
  /** Records per second the active controller appends (one record per append, every 1000 / rate ms). */
  recordsPerSec: number;
}

export class MetadataAppendLoad {
  /** The last counter value this controller read as committed (0 before the first). */
  committed = 0;
  /** Appends the active controller made, and of those the ones committed / lost to a failover. */
  appended = 0;
  acknowledged = 0;
  abandoned = 0;
  /** The highest value whose commit this controller saw acknowledged. */
  maxAcknowledged = 0;
  /** The first broken sequence this controller read, for the `ReplicatedCounter` invariant. */
  violation: string | undefined;
  #nextOffset = 0;
  #uncommitted = 0;
  readonly intervalMs: number;

  constructor(
    readonly controller: QuorumController,
    options: MetadataAppendLoadOptions,
  ) {
    const rate = options.recordsPerSec;
    if (!(rate > 0) || !Number.isFinite(rate))
      throw new Error(`the metadata append load needs recordsPerSec > 0, not ${rate}`);
    this.intervalMs = 1000 / rate;
    controller.metadataLog.onCommit(() => {
      if (controller.up) this.readCommitted();
    });
    controller.onLifecycle((event) => {
      if (event === 'start') this.start();
      else if (event === 'active') {
        // Active only after replaying everything up to its epoch start: the committed value is the last one.
        this.readCommitted();
        this.#uncommitted = this.committed;
      }
    });
    if (controller.up) this.start();
  }

  /** A (re)start: the counter is rebuilt from the log, and the append timer runs on the node's clock. */
  private start(): void {
    this.committed = 0;
    this.#nextOffset = 0;
    this.#uncommitted = 0;
    this.readCommitted();
    this.controller.every(this.intervalMs, () => this.tick(), 'controller.append-load');
  }

  private tick(): void {
    const controller = this.controller;
    if (!controller.isActive) return;
    const value = this.#uncommitted + 1;
    const record: CounterRecord = { type: 'NoOpRecord', 'kafkasim.counter': value };
    const appended = controller.write([record], (committed) => {
      if (!committed) {
        this.abandoned++;
        return;
      }
      this.acknowledged++;
      if (value > this.maxAcknowledged) this.maxAcknowledged = value;
    });
    if (!appended) return;
    this.#uncommitted = value;
    this.appended++;
  }

  private readCommitted(): void {
    for (const { offset, record } of this.controller.metadataLog.readCommitted(this.#nextOffset)) {
      this.#nextOffset = offset + 1;
      const value = counterValue(record);
      if (value === undefined) continue;
      if (value !== this.committed + 1 && this.violation === undefined) {
        this.violation =
          `${this.controller.id}: expected the next committed counter value to be ${this.committed + 1}, ` +
          `but found ${value} at offset ${offset}`;
      }
      this.committed = value;
    }
  }
}
