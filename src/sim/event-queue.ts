// The event queue: a binary min-heap ordered by (time, insertion sequence), so that events at the same virtual
// time run in the order they were scheduled. Cancelled events stay in the heap (O(1) cancel) and are skipped
// when popped; the heap is compacted when dead entries outnumber live ones, so memory follows live timers.

export class SimEvent {
  cancelled = false;
  constructor(
    readonly time: number,
    readonly seq: number,
    public fn: (() => void) | null,
    readonly label: string | undefined,
    /** @internal The queue while the event is in its heap; null once popped, so a late cancel() is not counted. */
    public owner: EventQueue | null,
  ) {}

  /** Cancels the event; a cancelled event never runs. Cancelling twice, or after it ran, is harmless. */
  cancel(): void {
    if (this.cancelled || this.fn === null) return;
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

const COMPACT_MIN = 1024;

export class EventQueue {
  private heap: SimEvent[] = [];
  private seq = 0;
  private dead = 0;

  get size(): number {
    return this.heap.length - this.dead;
  }

  push(time: number, fn: () => void, label?: string): SimEvent {
    const ev = new SimEvent(time, this.seq++, fn, label, this);
    const heap = this.heap;
    heap.push(ev);
    this.siftUp(heap.length - 1);
    return ev;
  }

  /** The next live event without removing it, or undefined. */
  peek(): SimEvent | undefined {
    this.dropDeadTop();
    return this.heap[0];
  }

  /** Removes and returns the next live event, or undefined when none is left. */
  pop(): SimEvent | undefined {
    this.dropDeadTop();
    return this.removeTop();
  }

  noteCancelled(): void {
    this.dead++;
    if (this.dead > COMPACT_MIN && this.dead * 2 > this.heap.length) this.compact();
  }

  private dropDeadTop(): void {
    const heap = this.heap;
    while (heap.length > 0 && heap[0]!.cancelled) {
      this.removeTop();
      this.dead--;
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
