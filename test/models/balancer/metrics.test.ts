// The reporter's one-minute rates (Yammer's EWMA, 5 s ticks) and AutoMQ's normalizers.
import { describe, expect, it } from 'vitest';
import {
  LinearNormalizer,
  ONE_MINUTE_ALPHA,
  OneMinuteRate,
  StepNormalizer,
} from '../../../models/balancer/index.ts';

describe('OneMinuteRate', () => {
  it('reads 0 before the first tick, then the first tick sets the rate', () => {
    const m = new OneMinuteRate();
    expect(m.value).toBe(0);
    m.tick(5000);
    expect(m.value).toBe(1000);
  });

  it("moves 1 - e^(-5/60) of the way to each tick's rate: 63% of a step after one minute", () => {
    expect(ONE_MINUTE_ALPHA).toBeCloseTo(1 - Math.exp(-1 / 12), 15);
    const m = new OneMinuteRate();
    m.tick(0);
    for (let i = 0; i < 12; i++) m.tick(5 * 1000);
    expect(m.value).toBeCloseTo(1000 * (1 - Math.exp(-1)), 9);
  });
});

describe('normalizers', () => {
  it('LinearNormalizer maps [min, max] to [0, 1]', () => {
    const n = new LinearNormalizer(10, 30);
    expect(n.normalize(10)).toBe(0);
    expect(n.normalize(20)).toBe(0.5);
    expect(n.normalize(30)).toBe(1);
  });

  it('StepNormalizer is linear to stepValue at the step, then logarithmic towards 1', () => {
    const n = new StepNormalizer(2, 102, 0.9);
    expect(n.normalize(2)).toBe(0);
    expect(n.normalize(52)).toBeCloseTo(0.45, 12);
    expect(n.normalize(102)).toBeCloseTo(0.9, 12);
    expect(n.normalize(102 * 102)).toBeCloseTo(0.95, 12); // ln(step)/ln(step²) = 1/2
    expect(n.normalize(1e300)).toBeLessThan(1);
    expect(() => new StepNormalizer(0, 1, 1.5)).toThrow(/\[0, 1\]/);
  });
});
