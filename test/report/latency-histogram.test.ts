import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/report/index.ts';
import { latencyBucket } from '../../src/report/latency-histogram.ts';

/** Nearest-rank percentile of the exact values. */
function exact(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

describe('LatencyHistogram', () => {
  it('gives nearest-rank percentiles within the bucket width', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.01, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.constantFrom(0.5, 0.9, 0.99, 0.999, 1),
        (values, q) => {
          const h = new LatencyHistogram();
          for (const v of values) h.add(v);
          const want = exact(values, q);
          // Buckets: 0.1 ms below 10 ms, 1 ms below 1 s, 3 significant digits above (0.5% relative).
          const tolerance = want < 10 ? 0.05 : want < 1000 ? 0.5 : want * 0.005;
          expect(Math.abs(h.percentile(q)! - want)).toBeLessThanOrEqual(tolerance + 1e-9);
          expect(h.max).toBe(Math.max(...values));
          expect(h.count).toBe(values.length);
        },
      ),
    );
  });

  it('answers exactly what counting records per latencyBucket value answers', () => {
    const latency = fc.oneof(
      fc.double({ min: -1, max: 2e6, noNaN: true }),
      fc.constantFrom(0, 9.95, 9.96, 10, 999.4, 999.5, 999.6, 1000, 1000.4, 1004.9, Number.NaN),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(latency, fc.integer({ min: 1, max: 50 })), { minLength: 1, maxLength: 200 }),
        (runs) => {
          const h = new LatencyHistogram();
          const byValue = new Map<number, number>();
          for (const [ms, n] of runs) {
            h.add(ms, n);
            byValue.set(latencyBucket(ms), (byValue.get(latencyBucket(ms)) ?? 0) + n);
          }
          const total = runs.reduce((s, [, n]) => s + n, 0);
          const sorted = [...byValue].sort((a, b) => a[0] - b[0]);
          for (const q of [0, 0.5, 0.9, 0.99, 0.999, 1]) {
            const rank = Math.max(1, Math.ceil(q * total));
            let seen = 0;
            const want = sorted.find(([, n]) => (seen += n) >= rank)![0];
            expect(h.percentile(q)).toBe(want);
          }
        },
      ),
    );
  });

  it('weights a run of records by its count', () => {
    const h = new LatencyHistogram();
    h.add(2, 99);
    h.add(500, 1);
    expect(h.percentile(0.5)).toBe(2);
    expect(h.percentile(0.99)).toBe(2);
    expect(h.percentile(0.999)).toBe(500);
    expect(h.mean).toBeCloseTo((2 * 99 + 500) / 100);
    expect(new LatencyHistogram().percentile(0.5)).toBeUndefined();
  });
});
