import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DurationError, formatDuration, parseDuration } from '../../../models/sim/index.ts';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['5s', 5_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1.5s', 1_500],
    ['.5s', 500],
    ['0ms', 0],
    [' 5s ', 5_000],
    ['5 s', 5_000],
    ['42', 42],
    ['2.5', 2.5],
    [0, 0],
    [1.25, 1.25],
  ] as const)('%j is %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', '   ', 'abc', '5x', '5S', '-5s', '1e3', '5 seconds', '1h30m', 's', '5..1s'])(
    'rejects %j, naming the input and where it came from',
    (input) => {
      expect(() => parseDuration(input, 'scenario.steps[2].wait')).toThrow(DurationError);
      try {
        parseDuration(input, 'scenario.steps[2].wait');
      } catch (e) {
        const message = (e as Error).message;
        expect(message).toContain(`"${input}"`);
        expect(message).toContain('at scenario.steps[2].wait');
        expect(message).toMatch(/expected .*"250ms"/);
      }
    },
  );

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects the number %d, naming it and where',
    (input) => {
      expect(() => parseDuration(input, 'runFor')).toThrow(
        new DurationError(
          `invalid duration at runFor: ${input} (expected a non-negative number of milliseconds)`,
        ),
      );
    },
  );

  it('rejects a value that is neither string nor number, naming where', () => {
    expect(() => parseDuration(null as unknown as string, 'config.timeout')).toThrow(
      /invalid duration at config\.timeout: expected a string/,
    );
  });

  it('leaves out the location when none is given', () => {
    expect(() => parseDuration('soon')).toThrow(/^invalid duration: "soon"/);
  });

  it('property: any non-negative number with any unit parses to number x unit', () => {
    const units = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])),
        (n, unit) => {
          expect(parseDuration(`${n}${unit}`)).toBe(n * units[unit]);
        },
      ),
    );
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [250, '250ms'],
    [0.5, '0.5ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [60_000, '1m'],
    [150_000, '2m30s'],
    [3_600_000, '1h'],
    [3_601_000, '1h1s'],
    [3_720_000, '1h2m'],
  ])('%d ms reads as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips whole seconds below a minute through parseDuration', () => {
    for (const ms of [1_000, 7_000, 59_000]) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});
