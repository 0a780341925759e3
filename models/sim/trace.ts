// The trace: structured events `{t, kind, node, ...}` that reports, the API's event stream and tests subscribe
// to. A bounded ring buffer keeps the most recent ones; a running hash over every event proves determinism
// (same seed and inputs: same hash).

export interface TraceEvent {
  t: number;
  kind: string;
  node?: string;
  [field: string]: unknown;
}

export type TraceListener = (event: TraceEvent) => void;

const FNV_PRIME = 0x01000193;

export class Trace {
  private readonly buffer: (TraceEvent | undefined)[];
  private next = 0;
  private listeners: TraceListener[] = [];
  private h1 = 0x811c9dc5;
  private h2 = 0x9747b28c;
  /** Number of events emitted so far. */
  count = 0;

  constructor(
    private readonly clock: { readonly now: number },
    readonly bufferSize = 10_000,
  ) {
    this.buffer = new Array(bufferSize);
  }

  /** Records an event at the current virtual time. `fields` must be plain JSON data. */
  emit(kind: string, node: string | undefined, fields?: Record<string, unknown>): TraceEvent {
    const event: TraceEvent =
      node === undefined ? { t: this.clock.now, kind } : { t: this.clock.now, kind, node };
    if (fields) Object.assign(event, fields);
    this.record(event);
    return event;
  }

  private record(event: TraceEvent): void {
    this.count++;
    const text = JSON.stringify(event);
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, FNV_PRIME);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    this.h1 = h1 ^ 0x0a;
    this.h2 = h2;
    if (this.bufferSize > 0) {
      this.buffer[this.next] = event;
      this.next = this.next + 1 === this.bufferSize ? 0 : this.next + 1;
    }
    for (const l of this.listeners) l(event);
  }

  /** A stable hash of every event emitted so far (16 hex digits). */
  get hash(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }

  /** Calls `listener` for every event from now on; returns the unsubscribe function. */
  subscribe(listener: TraceListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** The most recent events still in the buffer, oldest first, optionally filtered by kind prefix. */
  recent(kindPrefix?: string): TraceEvent[] {
    const out: TraceEvent[] = [];
    for (let i = 0; i < this.bufferSize; i++) {
      const e = this.buffer[(this.next + i) % this.bufferSize];
      if (e && (kindPrefix === undefined || e.kind.startsWith(kindPrefix))) out.push(e);
    }
    return out;
  }
}

/** A trace listener that writes one JSON line per event (e.g. `line => stream.write(line)`). */
export function jsonlSink(write: (line: string) => void): TraceListener {
  return (event) => write(`${JSON.stringify(event)}\n`);
}
