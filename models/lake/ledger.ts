// The Lake's ledger: for every table the sink writes, how many rows hold each Kafka record (topic, partition,
// offset). It is the simulation's exact knowledge, kept in step with the write log, so a run can say which
// records are missing and which are duplicated without asking SQL (and a `waitUntil` can count rows in virtual
// time). One counter per offset in a growable typed array: a million records cost a megabyte or two.
// SQL a client runs against the table (DELETE, UPDATE) is not reflected here: the ledger counts what the sink
// wrote.

export interface OffsetRange {
  topic: string;
  partition: number;
  /** First offset of the range. */
  from: number;
  /** Last offset of the range (inclusive). */
  to: number;
}

export interface LedgerSummary {
  /** Rows the sink wrote that are still in the table (replace mode counts a replaced row once). */
  rows: number;
  /** Distinct records with at least one row. */
  distinctRecords: number;
  /** Extra copies: rows - distinctRecords. */
  duplicateRows: number;
}

class PartitionCopies {
  counts = new Uint16Array(1024);
  /** One past the highest offset with a row. */
  end = 0;
  /** Rows of this partition's records. */
  rows = 0;

  add(offset: number, replace: boolean): number {
    if (offset >= this.counts.length) {
      let size = this.counts.length;
      while (size <= offset) size *= 2;
      const grown = new Uint16Array(size);
      grown.set(this.counts);
      this.counts = grown;
    }
    const before = this.counts[offset]!;
    const after = replace ? 1 : before + 1;
    this.counts[offset] = after;
    if (offset >= this.end) this.end = offset + 1;
    this.rows += after - before;
    return after - before;
  }
}

export class LakeLedger {
  private readonly partitions = new Map<string, PartitionCopies>();
  rows = 0;
  distinctRecords = 0;

  private copiesOf(topic: string, partition: number): PartitionCopies {
    const key = `${topic}\u0000${partition}`;
    let p = this.partitions.get(key);
    if (!p) this.partitions.set(key, (p = new PartitionCopies()));
    return p;
  }

  /** Records rows for offsets base..base+count-1; `replace` keeps one row per record (REPLACE INTO). */
  add(topic: string, partition: number, baseOffset: number, count: number, replace: boolean): void {
    const p = this.copiesOf(topic, partition);
    for (let o = baseOffset; o < baseOffset + count; o++) {
      const wasNew = p.counts.length <= o || p.counts[o] === 0;
      this.rows += p.add(o, replace);
      if (wasNew) this.distinctRecords++;
    }
  }

  copies(topic: string, partition: number, offset: number): number {
    const p = this.partitions.get(`${topic}\u0000${partition}`);
    return p && offset < p.counts.length ? p.counts[offset]! : 0;
  }

  summary(): LedgerSummary {
    return {
      rows: this.rows,
      distinctRecords: this.distinctRecords,
      duplicateRows: this.rows - this.distinctRecords,
    };
  }

  /** Offsets in from..to (inclusive) of one partition with no row, as ranges. */
  missing(topic: string, partition: number, from: number, to: number): OffsetRange[] {
    return this.ranges(topic, partition, from, to, (c) => c === 0);
  }

  /** Offsets in from..to with more than one row, as ranges. */
  duplicated(topic: string, partition: number, from: number, to: number): OffsetRange[] {
    return this.ranges(topic, partition, from, to, (c) => c > 1);
  }

  private ranges(
    topic: string,
    partition: number,
    from: number,
    to: number,
    match: (copies: number) => boolean,
  ): OffsetRange[] {
    const out: OffsetRange[] = [];
    let start = -1;
    for (let o = from; o <= to; o++) {
      const m = match(this.copies(topic, partition, o));
      if (m && start < 0) start = o;
      if (!m && start >= 0) {
        out.push({ topic, partition, from: start, to: o - 1 });
        start = -1;
      }
    }
    if (start >= 0) out.push({ topic, partition, from: start, to });
    return out;
  }

  /** Rows per partition written (the sink's, as the web UI's Lake view shows them), by topic then partition. */
  partitionRows(): { topic: string; partition: number; rows: number; endOffset: number }[] {
    return [...this.partitions.entries()]
      .map(([key, p]) => {
        const cut = key.indexOf('\u0000');
        return {
          topic: key.slice(0, cut),
          partition: Number(key.slice(cut + 1)),
          rows: p.rows,
          endOffset: p.end,
        };
      })
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }

  /** Partitions with any row, as `topic`/`partition` pairs. */
  partitionsWritten(): { topic: string; partition: number; endOffset: number }[] {
    return [...this.partitions.entries()].map(([key, p]) => {
      const cut = key.indexOf('\u0000');
      return { topic: key.slice(0, cut), partition: Number(key.slice(cut + 1)), endOffset: p.end };
    });
  }
}
