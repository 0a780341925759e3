import { describe, expect, it } from 'vitest';
import { invalidRecordValue } from '../../../models/lake/explicit-producer.ts';
import {
  buildJsonRows,
  buildRawRows,
  cleanValue,
  loadRecordValue,
  type MessageSlice,
} from '../../../models/lake/index.ts';
import type { RecordBatch, RecordData } from '../../../models/storage/index.ts';

function slice(records: RecordData[], baseOffset = 100, first = 0, runs?: RecordBatch['runs']): MessageSlice {
  const batch: RecordBatch = {
    baseOffset,
    count: records.length,
    bytes: 0,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    origin: 'p',
    runs: runs ?? [{ index: 0, count: records.length, time: 10 }],
    records,
    partitionLeaderEpoch: 0,
    appendTime: 12,
  };
  return { topic: 't', partition: 1, batch, first, count: records.length - first };
}

describe('batch rows', () => {
  it('cleans values as the service does: no tab or newline, trimmed, empty is null', () => {
    expect(cleanValue('  {"a":\t1}\n ')).toBe('{"a":1}');
    expect(cleanValue('{"s":"x\ny"}')).toBe('{"s":"xy"}');
    expect(cleanValue(' \t\n ')).toBeNull();
    expect(cleanValue(null)).toBeNull();
  });

  it('raw rows keep offsets, keys ("" for null) and record timestamps from the producer runs', () => {
    const s = slice(
      [
        { key: 'a', value: '{"n":1}' },
        { key: null, value: '' },
        { key: 'c', value: '[1,2]' },
      ],
      100,
      1,
      [
        { index: 7, count: 2, time: 10.7 },
        { index: 20, count: 1, time: 30.2 },
      ],
    );
    const built = buildRawRows([s], 1000);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.rows).toBe(2);
    const seg = built.segments[0]!;
    expect(seg).toMatchObject({
      topic: 't',
      partition: 1,
      baseOffset: 101,
      values: [null, '[1,2]'],
      keys: ['', 'c'],
    });
    expect(Array.from(seg.timestamps)).toEqual([1010, 1030]);
  });

  it('one value that is not JSON fails the whole batch and names the record', () => {
    const good = slice([{ key: null, value: '{"ok":1}' }], 0);
    const bad = slice(
      [
        { key: null, value: '{"ok":2}' },
        { key: null, value: '{"sequence": oops}' },
      ],
      50,
    );
    const built = buildRawRows([good, bad], 0);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.bad).toMatchObject({ topic: 't', partition: 1, offset: 51 });
    expect(built.bad.error).toMatch(/^invalid JSON: /);
  });

  it('a value the model built as JSON (valueIsJson) is not parsed again; every other value is', () => {
    // The flag is the producer's word, so a wrong one shows: the same bad text passes flagged and fails unflagged.
    const text = '{"sequence": oops}';
    expect(buildRawRows([slice([{ key: null, value: text, valueIsJson: true }])], 0).ok).toBe(true);
    expect(buildRawRows([slice([{ key: null, value: text }])], 0).ok).toBe(false);
    // The load producer flags only what loadRecordValue writes, and that is JSON for any sequence and partition.
    for (const n of [0, 7, 99_999, 12_345_678, 2 ** 31]) {
      for (const p of [0, 5, 63]) {
        expect(JSON.parse(loadRecordValue(n, p))).toMatchObject({ sequence: n, partition: p });
        expect(() => JSON.parse(invalidRecordValue(n, p))).toThrow(SyntaxError);
      }
    }
  });

  it('JSON-transform rows need objects whose fields fit the columns', () => {
    const cols = [
      { name: 'id', type: 'BIGINT' },
      { name: 'ok', type: 'BOOLEAN' },
    ];
    const built = buildJsonRows(
      [
        slice([
          { key: null, value: '{"id":1,"ok":true}' },
          { key: null, value: '{"id":"2"}' },
        ]),
      ],
      cols,
    );
    expect(built).toMatchObject({ ok: true, values: ['{"id":1,"ok":true}', '{"id":"2"}'] });
    const notObject = buildJsonRows([slice([{ key: null, value: '[1]' }])], cols);
    expect(notObject).toMatchObject({
      ok: false,
      bad: { offset: 100, error: 'an NDJSON line must be a JSON object' },
    });
    const wrongType = buildJsonRows([slice([{ key: null, value: '{"id":1.5}' }])], cols);
    expect(wrongType).toMatchObject({ ok: false, bad: { error: 'column id: 1.5 is not an integer' } });
  });
});
