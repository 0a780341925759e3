// The Lake's ledger counts rows per partition as the sink writes them (the web UI's Lake view): inserts add a row
// per copy, REPLACE INTO keeps one per record, and partitions come sorted by topic then partition.
import { describe, expect, it } from 'vitest';
import { LakeLedger } from '../../../models/lake/ledger.ts';

describe('LakeLedger.partitionRows', () => {
  it('counts each partition’s rows, duplicates included, and replace mode once per record', () => {
    const l = new LakeLedger();
    l.add('t', 1, 0, 10, false);
    l.add('t', 0, 0, 5, false);
    l.add('t', 0, 3, 4, false); // offsets 3 and 4 twice: 2 duplicate rows
    l.add('s', 0, 0, 3, true);
    l.add('s', 0, 0, 3, true); // replaced: still one row each
    expect(l.partitionRows()).toEqual([
      { topic: 's', partition: 0, rows: 3, endOffset: 3 },
      { topic: 't', partition: 0, rows: 9, endOffset: 7 },
      { topic: 't', partition: 1, rows: 10, endOffset: 10 },
    ]);
    expect(l.summary()).toEqual({ rows: 22, distinctRecords: 20, duplicateRows: 2 });
  });
});
