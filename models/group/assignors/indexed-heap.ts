// A binary heap of small integer items (0..capacity-1) whose keys live outside the heap and may change:
// after changing an item's key, call update(item). The sticky assignor's balancing keeps members ordered
// by partition count this way instead of scanning all members for every partition.

export class IndexedHeap {
  private readonly items: Int32Array;
  private readonly pos: Int32Array;
  private length = 0;

  /** `before(a, b)` is true when a must come out before b; it must be a strict total order. */
  constructor(
    capacity: number,
    private readonly before: (a: number, b: number) => boolean,
  ) {
    this.items = new Int32Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
  }

  get size(): number {
    return this.length;
  }

  has(item: number): boolean {
    return this.pos[item]! >= 0;
  }

  peek(): number {
    if (this.length === 0) throw new Error('peek on an empty heap');
    return this.items[0]!;
  }

  push(item: number): void {
    const i = this.length++;
    this.items[i] = item;
    this.pos[item] = i;
    this.siftUp(i);
  }

  remove(item: number): void {
    const i = this.pos[item]!;
    if (i < 0) return;
    const last = this.items[--this.length]!;
    this.pos[item] = -1;
    if (i === this.length) return;
    this.items[i] = last;
    this.pos[last] = i;
    this.siftDown(this.siftUp(i));
  }

  update(item: number): void {
    const i = this.pos[item]!;
    if (i >= 0) this.siftDown(this.siftUp(i));
  }

  private siftUp(i: number): number {
    const item = this.items[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = this.items[parent]!;
      if (!this.before(item, p)) break;
      this.items[i] = p;
      this.pos[p] = i;
      i = parent;
    }
    this.items[i] = item;
    this.pos[item] = i;
    return i;
  }

  private siftDown(i: number): number {
    const item = this.items[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.length) break;
      const right = left + 1;
      let child = left;
      if (right < this.length && this.before(this.items[right]!, this.items[left]!)) child = right;
      const c = this.items[child]!;
      if (!this.before(c, item)) break;
      this.items[i] = c;
      this.pos[c] = i;
      i = child;
    }
    this.items[i] = item;
    this.pos[item] = i;
    return i;
  }
}
