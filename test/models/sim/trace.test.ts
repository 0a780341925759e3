import { describe, expect, it } from 'vitest';
import { jsonlSink, Trace, type TraceEvent } from '../../../models/sim/index.ts';

const clockAt = (now = 0) => ({ now });

describe('Trace', () => {
  it('records {t, kind, node, ...fields} at the current virtual time', () => {
    const clock = clockAt(12.5);
    const trace = new Trace(clock);
    expect(trace.emit('broker.fenced', 'broker-1', { epoch: 3 })).toEqual({
      t: 12.5,
      kind: 'broker.fenced',
      node: 'broker-1',
      epoch: 3,
    });
    clock.now = 20;
    expect(trace.emit('net.heal', undefined)).toEqual({ t: 20, kind: 'net.heal' });
    expect(trace.count).toBe(2);
  });

  it('the ring buffer keeps only the most recent events, oldest first', () => {
    const trace = new Trace(clockAt(), 5);
    for (let i = 0; i < 12; i++) trace.emit(i % 2 ? 'odd' : 'even', undefined, { i });
    expect(trace.recent().map((e) => e.i)).toEqual([7, 8, 9, 10, 11]);
    expect(trace.recent('odd').map((e) => e.i)).toEqual([7, 9, 11]);
    expect(trace.count).toBe(12);
  });

  it('before the buffer fills, recent() returns what there is', () => {
    const trace = new Trace(clockAt(), 5);
    trace.emit('a', undefined);
    trace.emit('b', undefined);
    expect(trace.recent().map((e) => e.kind)).toEqual(['a', 'b']);
  });

  it('a buffer of size 0 keeps nothing but still hashes and notifies', () => {
    const trace = new Trace(clockAt(), 0);
    const seen: TraceEvent[] = [];
    trace.subscribe((e) => seen.push(e));
    const empty = trace.hash;
    trace.emit('x', 'n');
    expect(trace.recent()).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(trace.hash).not.toBe(empty);
  });

  it('subscribe delivers every later event until unsubscribed', () => {
    const trace = new Trace(clockAt());
    trace.emit('before', undefined);
    const a: string[] = [];
    const b: string[] = [];
    const offA = trace.subscribe((e) => a.push(e.kind));
    trace.subscribe((e) => b.push(e.kind));
    trace.emit('one', undefined);
    offA();
    offA();
    trace.emit('two', undefined);
    expect(a).toEqual(['one']);
    expect(b).toEqual(['one', 'two']);
  });

  it('a listener may unsubscribe itself while being notified; the others still get the event', () => {
    const trace = new Trace(clockAt());
    const got: string[] = [];
    const off = trace.subscribe(() => {
      got.push('self');
      off();
    });
    trace.subscribe((e) => got.push(e.kind));
    trace.emit('x', undefined);
    trace.emit('y', undefined);
    expect(got).toEqual(['self', 'x', 'y']);
  });

  it('jsonlSink writes one parseable JSON line per event', () => {
    const trace = new Trace(clockAt(3));
    const lines: string[] = [];
    trace.subscribe(jsonlSink((l) => lines.push(l)));
    const e1 = trace.emit('a', 'n1', { list: [1, 2], nested: { ok: true } });
    const e2 = trace.emit('b', undefined);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.endsWith('\n') && !l.slice(0, -1).includes('\n')).toBe(true);
    expect(lines.map((l) => JSON.parse(l))).toEqual([e1, e2]);
  });

  it('the hash is stable: same events give the same hash, any difference changes it', () => {
    const emitAll = (trace: Trace, detail: string) => {
      trace.emit('a', 'n1', { x: 1 });
      trace.emit('b', undefined, { detail });
      return trace.hash;
    };
    const h1 = emitAll(new Trace(clockAt()), 'd');
    expect(h1).toMatch(/^[0-9a-f]{16}$/);
    expect(emitAll(new Trace(clockAt(), 2), 'd')).toBe(h1);
    expect(emitAll(new Trace(clockAt()), 'e')).not.toBe(h1);
    expect(emitAll(new Trace(clockAt(1)), 'd')).not.toBe(h1);
    // Event boundaries count: "ab" then "c" differs from "a" then "bc".
    const t1 = new Trace(clockAt());
    t1.emit('ab', undefined);
    t1.emit('c', undefined);
    const t2 = new Trace(clockAt());
    t2.emit('a', undefined);
    t2.emit('bc', undefined);
    expect(t1.hash).not.toBe(t2.hash);
  });

  it('the hash of an empty trace is a fixed value (the same on every machine)', () => {
    expect(new Trace(clockAt()).hash).toBe(new Trace(clockAt(99)).hash);
    // A known-answer check: if the hash function changes, every recorded trace hash changes with it.
    const t = new Trace(clockAt(0));
    t.emit('node.start', 'n1', { incarnation: 1 });
    expect(t.hash).toBe(KNOWN_HASH);
  });
});

// Pins the hash function, so that hashes quoted in docs and bug reports stay valid. Recomputed outside JS by
// scripts/fingerprint-reference.py (the trace event's JSON text into the run fingerprint's mixing).
const KNOWN_HASH = 'ae6757364f2d87e6';
