// The event queue: a binary min-heap ordered by (time, insertion sequence), so that events at the same virtual
// time run in the order they were scheduled. Cancelled events stay in the heap (O(1) cancel) and are skipped
// when popped; the heap is compacted when dead entries outnumber live ones, so memory follows live timers.
//
// Lanes are for timers that are many, almost always withdrawn, and whose times never decrease in the order they
// are added (every request timeout of one length): a lane keeps its entries in a FIFO and only one heap slot,
// keyed by an entry that is at or before its first live one. Withdrawing an entry touches no heap; a stale slot
// is re-keyed to the first live entry when it reaches the top, so entries still run in exact (time, sequence)
// order among all events, and each costs no heap insertion, no closure and no event object.

export class SimEvent {
  cancelled = false;
  /** @internal The argument `fn` is called with (lets the kernel schedule a shared function and a record). */
  arg: unknown = undefined;
  /** @internal Set on a lane's heap slot. */
  lane: Lane<LaneEntry> | null = null;
  constructor(
    readonly time: number,
    readonly seq: number,
    public fn: ((arg: never) => void) | null,
    readonly label: string | undefined,
    /** @internal The queue while the event is in its heap; null once popped, so a late cancel() is not counted. */
    public owner: EventQueue | null,
    /** The node the event belongs to (for the run's fingerprint), if any. */
    readonly node: string | undefined = undefined,
  ) {}

  /** Cancels the event; a cancelled event never runs. Cancelling twice, or after it ran, is harmless. */
  cancel(): void {
    if (this.cancelled || this.fn === null || this.lane !== null) return;
    this.cancelled = true;
    this.fn = null;
    this.owner?.noteCancelled();
  }

  /** True while the event is scheduled and neither ran nor was cancelled. */
  get pending(): boolean {
    return this.fn !== null;
  }
}

export type Timer = SimEvent;

/** What a lane holds; the queue sets `time` and `seq` when the entry is added. */
export interface LaneEntry {
  time: number;
  seq: number;
  /** True from add() until the entry runs or is withdrawn. */
  queued: boolean;
  /** The node the entry's event belongs to (for the run's fingerprint), if any. */
  readonly node?: string | undefined;
}

/** Where the queue re-keys a lane's heap slot (the slot's time and seq are readonly to everyone else). */
type Rekeyable = { time: number; seq: number };

/** A FIFO of timers whose times never decrease in the order they are added; see the header. */
export class Lane<E extends LaneEntry> {
  /** @internal */ entries: (E | undefined)[] = [];
  /** @internal Entries [head, tail) are the FIFO; the first is queued, the others may have been withdrawn. */
  head = 0;
  /** @internal */ tail = 0;
  /** @internal Time of the last entry added (the FIFO must not go back in time). */ last = 0;
  /** @internal The lane's heap slot, in the heap while `armed`. */ readonly slot: SimEvent;
  /** @internal */ armed = false;

  constructor(
    /** @internal */ readonly queue: EventQueue,
    /** @internal Runs an entry whose time has come (as one event, labelled with the lane's label). */
    readonly run: (entry: E) => void,
    label: string,
  ) {
    this.slot = new SimEvent(0, 0, null, label, null);
    this.slot.lane = this as unknown as Lane<LaneEntry>;
  }

  /** Queues `entry` to run at `time`, which must not be before the time of the previous entry added. */
  add(time: number, entry: E): void {
    this.queue.enqueue(this as unknown as Lane<LaneEntry>, time, entry);
  }

  /** Withdraws a queued entry (a no-op for one that ran or was withdrawn already). */
  withdraw(entry: E): void {
    if (!entry.queued) return;
    entry.queued = false;
    this.queue.laneLive--;
    if (this.entries[this.head] === entry) this.advance();
  }

  /** @internal The first queued entry, or undefined. */
  first(): E | undefined {
    return this.head < this.tail ? this.entries[this.head] : undefined;
  }

  /** @internal Appends without giving up the array's storage (the FIFO empties and refills all the time). */
  push(entry: E): void {
    if (this.tail < this.entries.length) this.entries[this.tail] = entry;
    else this.entries.push(entry);
    this.tail++;
  }

  /** @internal Drops withdrawn entries from the front, so the FIFO holds only what is outstanding. */
  advance(): void {
    const entries = this.entries;
    const tail = this.tail;
    let head = this.head;
    while (head < tail && !entries[head]!.queued) entries[head++] = undefined;
    if (head === tail) {
      this.tail = 0;
      head = 0;
    } else if (head >= 1024 && head * 2 > tail) {
      entries.copyWithin(0, head, tail);
      entries.fill(undefined, tail - head, tail);
      this.tail = tail - head;
      head = 0;
    }
    this.head = head;
  }
}

const COMPACT_MIN = 1024;

/** A lane's heap slot came to the top with its entry due: run that entry. */
function fireLane(lane: Lane<LaneEntry>): void {
  lane.queue.fire(lane);
}

export class EventQueue {
  private heap: SimEvent[] = [];
  private seq = 0;
  private dead = 0;
  /** Lane slots in the heap (not events themselves). */
  private slots = 0;
  /** @internal Queued lane entries (each is an event). */
  laneLive = 0;

  get size(): number {
    return this.heap.length - this.dead - this.slots + this.laneLive;
  }

  push(time: number, fn: () => void, label?: string, node?: string): SimEvent {
    const ev = new SimEvent(time, this.seq++, fn, label, this, node);
    const heap = this.heap;
    heap.push(ev);
    this.siftUp(heap.length - 1);
    return ev;
  }

  /** Like push, but runs `fn(arg)`: one shared function and a record instead of a closure per event. */
  pushCall<A>(time: number, fn: (arg: A) => void, arg: A, label?: string, node?: string): SimEvent {
    const ev = new SimEvent(time, this.seq++, fn, label, this, node);
    ev.arg = arg;
    const heap = this.heap;
    heap.push(ev);
    this.siftUp(heap.length - 1);
    return ev;
  }

  /** A new lane whose entries run `run(entry)` as events labelled `label`. */
  lane<E extends LaneEntry>(run: (entry: E) => void, label: string): Lane<E> {
    return new Lane<E>(this, run, label);
  }

  /** @internal Lane.add. */
  enqueue(lane: Lane<LaneEntry>, time: number, entry: LaneEntry): void {
    if (time < lane.last)
      throw new RangeError(`lane ${lane.slot.label}: ${time} is before the previous entry`);
    lane.last = time;
    entry.time = time;
    entry.seq = this.seq++;
    entry.queued = true;
    lane.push(entry);
    this.laneLive++;
    if (!lane.armed) this.arm(lane, entry);
  }

  /** @internal A lane's slot is running: its first entry leaves the lane, the slot moves to the next one. */
  fire(lane: Lane<LaneEntry>): void {
    const entry = lane.first()!;
    entry.queued = false;
    this.laneLive--;
    lane.advance();
    const next = lane.first();
    if (next !== undefined) this.arm(lane, next);
    lane.run(entry);
  }

  /** The next live event without removing it, or undefined. */
  peek(): SimEvent | undefined {
    this.settleTop();
    return this.heap[0];
  }

  /** Removes and returns the next live event, or undefined when none is left. */
  pop(): SimEvent | undefined {
    this.settleTop();
    const top = this.removeTop();
    if (top !== undefined && top.lane !== null) {
      this.slots--;
      top.lane.armed = false;
    }
    return top;
  }

  noteCancelled(): void {
    this.dead++;
    if (this.dead > COMPACT_MIN && this.dead * 2 > this.heap.length) this.compact();
  }

  /** Puts a lane's slot in the heap, keyed by `entry`. */
  private arm(lane: Lane<LaneEntry>, entry: LaneEntry): void {
    const slot = lane.slot;
    (slot as Rekeyable).time = entry.time;
    (slot as Rekeyable).seq = entry.seq;
    slot.fn = fireLane as (arg: never) => void;
    slot.arg = lane;
    slot.owner = this;
    lane.armed = true;
    this.slots++;
    const heap = this.heap;
    heap.push(slot);
    this.siftUp(heap.length - 1);
  }

  /**
   * Makes the top a live event: drops cancelled events, and re-keys (or removes) a lane slot whose entry was
   * withdrawn. A slot's key is never after its lane's first queued entry, so re-keying only moves it down.
   */
  private settleTop(): void {
    const heap = this.heap;
    while (heap.length > 0) {
      const top = heap[0]!;
      if (top.cancelled) {
        this.removeTop();
        this.dead--;
        continue;
      }
      const lane = top.lane;
      if (lane === null) return;
      const first = lane.first();
      if (first === undefined) {
        this.removeTop();
        this.slots--;
        lane.armed = false;
        continue;
      }
      if (first.seq === top.seq) return;
      (top as Rekeyable).time = first.time;
      (top as Rekeyable).seq = first.seq;
      this.siftDown(0);
    }
  }

  private removeTop(): SimEvent | undefined {
    const heap = this.heap;
    const n = heap.length;
    if (n === 0) return undefined;
    const top = heap[0]!;
    top.owner = null;
    const last = heap.pop()!;
    if (n > 1) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private compact(): void {
    const live = this.heap.filter((e) => !e.cancelled);
    this.heap = live;
    this.dead = 0;
    for (let i = (live.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    const ev = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (parent.time < ev.time || (parent.time === ev.time && parent.seq < ev.seq)) break;
      heap[i] = parent;
      i = p;
    }
    heap[i] = ev;
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const ev = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let child = heap[l]!;
      if (r < n) {
        const rc = heap[r]!;
        if (rc.time < child.time || (rc.time === child.time && rc.seq < child.seq)) {
          c = r;
          child = rc;
        }
      }
      if (ev.time < child.time || (ev.time === child.time && ev.seq < child.seq)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = ev;
  }
}
