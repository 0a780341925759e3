// The timeline of the whole branch: markers (faults, moves, elections, rebalances, lesson steps) and the playhead.
// Clicking or dragging on it asks the server to rewind (or replay forward, up to the furthest point the branch
// reached) to that moment: POST /sim/rewind, which rebuilds the simulation from the recorded request log.
import type { Category } from './words.ts';

export interface Marker {
  t: number;
  category: Category;
  text: string;
}

const MAX_MARKERS = 3000;

export class Timeline {
  markers: Marker[] = [];
  private head = 0;
  private now = 0;
  private readonly canvas: HTMLCanvasElement;
  private readonly label: HTMLElement;
  private dragging = false;
  /** The container's width (CSS px), kept by a ResizeObserver: reading clientWidth at each draw would make the
   * browser lay the page out there and then. */
  private width = 0;
  onScrub: (t: number) => void = () => {};

  constructor(private readonly container: HTMLElement) {
    this.canvas = document.createElement('canvas');
    this.canvas.id = 'timeline-canvas';
    this.canvas.height = 44;
    this.label = document.createElement('div');
    this.label.className = 'timeline-label';
    container.append(this.canvas, this.label);
    new ResizeObserver(() => {
      this.width = this.container.clientWidth;
      this.draw();
    }).observe(container);
    const at = (ev: PointerEvent) => {
      const r = this.canvas.getBoundingClientRect();
      return Math.max(0, Math.min(1, (ev.clientX - r.left) / r.width)) * this.span();
    };
    this.canvas.addEventListener('pointerdown', (ev) => {
      this.dragging = true;
      this.canvas.setPointerCapture(ev.pointerId);
      this.now = at(ev);
      this.draw();
    });
    this.canvas.addEventListener('pointermove', (ev) => {
      if (!this.dragging) return;
      this.now = at(ev);
      this.draw();
    });
    this.canvas.addEventListener('pointerup', (ev) => {
      if (!this.dragging) return;
      this.dragging = false;
      this.onScrub(this.snap(at(ev)));
    });
  }

  /** A scrubbed moment rounded to a step finer than a pixel allows anyway (100 ms, 1 s or 10 s). */
  private snap(t: number): number {
    const perPixel = this.span() / Math.max(1, this.canvas.width);
    const step = perPixel <= 100 ? 100 : perPixel <= 1000 ? 1000 : 10_000;
    return Math.min(this.head, Math.round(t / step) * step);
  }

  /** The x offset (CSS pixels) of a moment on the timeline (tests scrub by clicking there). */
  xOf(t: number): number {
    return (t / this.span()) * this.canvas.getBoundingClientRect().width;
  }

  private span(): number {
    return Math.max(1000, this.head * 1.02);
  }

  add(m: Marker): void {
    this.markers.push(m);
    if (this.markers.length > MAX_MARKERS) this.markers.splice(0, this.markers.length - MAX_MARKERS);
  }

  /** Forgets markers after `t` (the branch was rewound there and will record them again). */
  cut(t: number): void {
    this.markers = this.markers.filter((m) => m.t <= t);
  }

  set(now: number, head: number): void {
    if (this.dragging) return;
    this.now = now;
    this.head = Math.max(head, now);
    this.draw();
  }

  draw(): void {
    const c = this.canvas;
    const width = this.width || 800;
    if (c.width !== width) c.width = width;
    const g = c.getContext('2d');
    if (!g) return;
    const span = this.span();
    const x = (t: number) => (t / span) * width;
    g.clearRect(0, 0, width, c.height);
    g.fillStyle = '#eee';
    g.fillRect(0, 16, width, 12);
    g.fillStyle = '#bbb';
    g.fillRect(0, 16, x(this.head), 12);
    const rows: Record<string, [number, string]> = {
      fault: [0, '#D55E00'],
      election: [6, '#0072B2'],
      move: [30, '#009E73'],
      rebalance: [36, '#CC79A7'],
      lesson: [30, '#000000'],
      balancer: [36, '#E69F00'],
      other: [36, '#999999'],
    };
    for (const m of this.markers) {
      const [y, colour] = rows[m.category] ?? rows.other!;
      g.fillStyle = colour;
      g.fillRect(Math.round(x(m.t)), y, 2, 8);
    }
    g.fillStyle = '#000';
    g.fillRect(Math.round(x(this.now)) - 1, 10, 3, 24);
    const label = `${(this.now / 1000).toFixed(1)} s of ${(this.head / 1000).toFixed(1)} s recorded · markers: red fault, blue election, green move, purple rebalance, black lesson step`;
    if (this.label.textContent !== label) this.label.textContent = label;
  }
}
