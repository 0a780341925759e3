// Seeded randomness. One seed per simulation; every component draws from its own named stream, derived from
// the seed and the stream's name only, so adding a component (a new stream) never changes another's draws.
// seedrandom's Alea generator: fast, good statistical quality, and portable across machines.
import seedrandom from 'seedrandom';

export class RandomStream {
  private readonly prng: () => number;
  private spareNormal: number | undefined;

  constructor(
    readonly name: string,
    seed: string,
  ) {
    this.prng = seedrandom.alea(`${seed}\u0000${name}`);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng();
  }

  /** Uniform in [min, max). */
  uniform(min = 0, max = 1): number {
    return min + (max - min) * this.prng();
  }

  /** Integer uniform in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`int(${min}, ${max}): max is below min`);
    return min + Math.floor(this.prng() * (max - min + 1));
  }

  /** An unsigned 32-bit integer. */
  uint32(): number {
    return Math.floor(this.prng() * 0x1_0000_0000) >>> 0;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.prng() < p;
  }

  /** Exponentially distributed with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.prng());
  }

  /** Normally distributed (Box-Muller; the second value of each pair is kept for the next call). */
  normal(mean = 0, sd = 1): number {
    let z = this.spareNormal;
    if (z !== undefined) {
      this.spareNormal = undefined;
    } else {
      let u = 0;
      while (u === 0) u = this.prng();
      const v = this.prng();
      const r = Math.sqrt(-2 * Math.log(u));
      z = r * Math.cos(2 * Math.PI * v);
      this.spareNormal = r * Math.sin(2 * Math.PI * v);
    }
    return mean + sd * z;
  }

  /** `base` scaled by a uniform factor in [1 - fraction, 1 + fraction) (Kafka-style timer jitter). */
  jitter(base: number, fraction: number): number {
    return base * (1 + this.uniform(-fraction, fraction));
  }

  /** One element, uniformly. Throws on an empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError(`pick from an empty list (stream ${this.name})`);
    return items[Math.floor(this.prng() * items.length)]!;
  }

  /** One element with probability proportional to its weight. */
  weightedPick<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    if (items.length === 0 || total <= 0)
      throw new RangeError(`weightedPick needs positive weights (stream ${this.name})`);
    let x = this.prng() * total;
    for (let i = 0; i < items.length; i++) {
      x -= weights[i]!;
      if (x < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.prng() * (i + 1));
      const t = out[i]!;
      out[i] = out[j]!;
      out[j] = t;
    }
    return out;
  }
}

export class Rng {
  private readonly streams = new Map<string, RandomStream>();

  constructor(readonly seed: string) {}

  /** The named stream; the same name always gives the same stream object. */
  stream(name: string): RandomStream {
    let s = this.streams.get(name);
    if (!s) {
      s = new RandomStream(name, this.seed);
      this.streams.set(name, s);
    }
    return s;
  }
}
