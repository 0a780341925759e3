// The run's fingerprint: one rolling 64-bit hash over everything that happened, so that two runs that differ
// anywhere (an event's time, kind or node; a trace event's fields; a batch's offsets, size or records) hash
// differently, and the same seed and inputs always hash the same.
//
// What it covers, in order of occurrence:
// - every kernel event that runs: its virtual time (the float's 64 bits), its label (the event's kind, e.g.
//   `net.deliver`, `broker.produce`) and the node it belongs to (the scheduling node, a message's receiver, a
//   request timeout's sender; '' for events no node owns);
// - every trace event: its JSON text (time, kind, node and every field);
// - the data plane, from the partition logs that report to it (`PartitionLog.reportTo`): each batch appended
//   (replica, base offset, record count, bytes, producer id and epoch, base sequence, leader epoch, origin and
//   record runs), each truncation and each advance of the log start offset.
// Record content (keys, values) is not hashed: sizes and identities are.
//
// Cost: a few multiply-rotate steps per event and a map lookup per distinct string (cached, with the last one
// remembered), no allocation per event. The mixing is MurmurHash3's 32-bit block step on two lanes with
// different seeds, finished with its fmix; changing any of it changes every golden fingerprint.

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** Strings whose hashes are cached; past this the cache starts over (labels and node ids are few). */
const MAX_CACHED_STRINGS = 4096;

/** FNV-1a over a string's UTF-16 code units. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Fingerprint {
  private h1 = 0x2545f491;
  private h2 = 0x9e3779b9;
  /** 32-bit words mixed so far (the length that the finish step folds in). */
  private words = 0;
  private readonly cache = new Map<string, number>();
  private lastString = '';
  private lastStringHash = hashString('');

  /** Mixes one 32-bit word (the low 32 bits of an integer). */
  word(x: number): void {
    let k = Math.imul(x | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    let h = this.h1 ^ k;
    h = (h << 13) | (h >>> 19);
    this.h1 = (Math.imul(h, 5) + 0xe6546b64) | 0;
    let j = Math.imul(x | 0, 0x1b873593);
    j = (j << 17) | (j >>> 15);
    j = Math.imul(j, 0xcc9e2d51);
    let g = this.h2 ^ j;
    g = (g << 15) | (g >>> 17);
    this.h2 = (Math.imul(g, 5) + 0x561ccd1b) | 0;
    this.words++;
  }

  /** Mixes a number exactly (its IEEE 754 bits: a time, an offset past 2^31). */
  number(x: number): void {
    f64[0] = x;
    this.word(u32[0]!);
    this.word(u32[1]!);
  }

  /** Mixes a string by its (cached) hash: for labels, node ids and other strings that repeat. */
  text(s: string): void {
    if (s === this.lastString) {
      this.word(this.lastStringHash);
      return;
    }
    let h = this.cache.get(s);
    if (h === undefined) {
      if (this.cache.size >= MAX_CACHED_STRINGS) this.cache.clear();
      h = hashString(s);
      this.cache.set(s, h);
    }
    this.lastString = s;
    this.lastStringHash = h;
    this.word(h);
  }

  /** Mixes a string that rarely repeats (a trace event's JSON) without caching it. */
  content(s: string): void {
    this.word(hashString(s));
    this.word(s.length);
  }

  /** One kernel event: its time, its kind and its node. */
  event(time: number, label: string | undefined, node: string | undefined): void {
    f64[0] = time;
    let l = this.lastLabelHash;
    if (label !== this.lastLabel) {
      l = this.stringHash(label ?? '');
      this.lastLabel = label;
      this.lastLabelHash = l;
    }
    let n = this.lastNodeHash;
    if (node !== this.lastNode) {
      n = this.stringHash(node ?? '');
      this.lastNode = node;
      this.lastNodeHash = n;
    }
    this.word(u32[0]!);
    this.word(u32[1]!);
    this.word(Math.imul(l, 0x9e3779b1) ^ n);
  }

  private lastLabel: string | undefined = '';
  private lastLabelHash = hashString('');
  private lastNode: string | undefined = '';
  private lastNodeHash = hashString('');

  private stringHash(s: string): number {
    let h = this.cache.get(s);
    if (h === undefined) {
      if (this.cache.size >= MAX_CACHED_STRINGS) this.cache.clear();
      h = hashString(s);
      this.cache.set(s, h);
    }
    return h;
  }

  /** The fingerprint so far, 16 hex digits (reading it changes nothing). */
  get hash(): string {
    const n = this.words;
    let a = this.h1 ^ n;
    let b = this.h2 ^ n;
    a = (a + b) | 0;
    b = (b + a) | 0;
    a = fmix(a);
    b = fmix(b);
    a = (a + b) | 0;
    b = (b + a) | 0;
    return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
  }
}
