import { describe, expect, it } from 'vitest';
import { FormatInputError, formatExplicitProducerSummary, goDuration } from '../../src/format/index.ts';

describe('explicit producer summary', () => {
  it('writes elapsed as Go durations', () => {
    expect(goDuration(0)).toBe('0s');
    expect(goDuration(850)).toBe('850ms');
    expect(goDuration(2345)).toBe('2.345s');
    expect(goDuration(2500)).toBe('2.5s');
    expect(goDuration(65200)).toBe('1m5.2s');
    expect(goDuration(3_600_000)).toBe('1h0m0s');
    expect(goDuration(3_723_004)).toBe('1h2m3.004s');
    expect(() => goDuration(-1)).toThrow(FormatInputError);
  });

  it('prints the workflow B line with a one-decimal rate', () => {
    expect(formatExplicitProducerSummary({ produced: 10000, remaining: 0, failed: 0, elapsedMs: 2345 })).toBe(
      'produced=10000 remaining=0 failed=0 elapsed=2.345s rate=4264.4 msg/s\n',
    );
    expect(
      formatExplicitProducerSummary({ produced: 90000, remaining: 0, failed: 0, elapsedMs: 18000 }),
    ).toBe('produced=90000 remaining=0 failed=0 elapsed=18s rate=5000.0 msg/s\n');
    expect(formatExplicitProducerSummary({ produced: 0, remaining: 5, failed: 5, elapsedMs: 0 })).toBe(
      'produced=0 remaining=5 failed=5 elapsed=0s rate=0.0 msg/s\n',
    );
  });
});
