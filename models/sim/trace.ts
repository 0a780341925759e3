// The trace: structured events `{t, kind, node, ...}` that reports, the API's event stream and tests subscribe
// to. A bounded ring buffer keeps the most recent ones. Every event's JSON goes into the run's fingerprint
// (fingerprint.ts), which the simulation also feeds every kernel event and the data plane; `hash` reads it.
import { Fingerprint } from './fingerprint.ts';

export interface TraceEvent {
  t: number;
  kind: string;
  node?: string;
  [field: string]: unknown;
}

export type TraceListener = (event: TraceEvent) => void;

export class Trace {
  private readonly buffer: (TraceEvent | undefined)[];
  private next = 0;
  private listeners: TraceListener[] = [];
  /** Number of events emitted so far. */
  count = 0;

  constructor(
    private readonly clock: { readonly now: number },
    readonly bufferSize = 10_000,
    /** The run's fingerprint (the simulation's); a trace of its own when none is given. */
    readonly fingerprint = new Fingerprint(),
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
    this.fingerprint.content(JSON.stringify(event));
    if (this.bufferSize > 0) {
      this.buffer[this.next] = event;
      this.next = this.next + 1 === this.bufferSize ? 0 : this.next + 1;
    }
    for (const l of this.listeners) l(event);
  }

  /**
   * The run's fingerprint so far (16 hex digits): in a simulation it covers every kernel event and the data
   * plane as well as every trace event (see fingerprint.ts); the name is the one reports and tools know.
   */
  get hash(): string {
    return this.fingerprint.hash;
  }

  /** Calls `listener` for every event from now on; returns the unsubscribe function. */
  subscribe(listener: TraceListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** How many listeners are subscribed (the API's tests check that a closed stream leaves none behind). */
  get listenerCount(): number {
    return this.listeners.length;
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
