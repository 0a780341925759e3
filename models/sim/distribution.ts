// Latency and delay distributions, as data, so that configs and scenarios can describe them.
import type { RandomStream } from './rng.ts';

export type Distribution =
  | { kind: 'constant'; ms: number }
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'normal'; mean: number; sd: number; min?: number }
  | { kind: 'exponential'; mean: number; min?: number }
  | { kind: 'lognormal'; median: number; sigma: number; min?: number };

export const constant = (ms: number): Distribution => ({ kind: 'constant', ms });

/** Draws one value in milliseconds; never negative. */
export function sample(d: Distribution, rng: RandomStream): number {
  switch (d.kind) {
    case 'constant':
      return d.ms;
    case 'uniform':
      return rng.uniform(d.min, d.max);
    case 'normal':
      return Math.max(d.min ?? 0, rng.normal(d.mean, d.sd));
    case 'exponential':
      return (d.min ?? 0) + rng.exponential(d.mean);
    case 'lognormal':
      return Math.max(d.min ?? 0, d.median * Math.exp(d.sigma * rng.normal()));
  }
}

/** The mean of a distribution (for docs and reports). */
export function mean(d: Distribution): number {
  switch (d.kind) {
    case 'constant':
      return d.ms;
    case 'uniform':
      return (d.min + d.max) / 2;
    case 'normal':
      return d.mean;
    case 'exponential':
      return (d.min ?? 0) + d.mean;
    case 'lognormal':
      return d.median * Math.exp((d.sigma * d.sigma) / 2);
  }
}
