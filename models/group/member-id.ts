// Member ids as Kafka's coordinator makes them: a UUID (java.util.UUID.randomUUID), here from a seeded stream so a
// run repeats; classic members prefix their client id.
import type { RandomStream } from '../sim/index.ts';

/** A version-4 UUID string from a seeded stream (Kafka's member ids use java.util.UUID.randomUUID). */
export function uuid(rng: RandomStream): string {
  const hex: string[] = [];
  for (let i = 0; i < 16; i++) {
    let b = rng.int(0, 255);
    if (i === 6) b = (b & 0x0f) | 0x40;
    if (i === 8) b = (b & 0x3f) | 0x80;
    hex.push(b.toString(16).padStart(2, '0'));
  }
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
