// The cluster: KRaft controllers (role, epoch, high watermark) on top, brokers (up, fenced, crashed, slow) in the
// middle, clients below, and the traffic between them. Traffic is the number of messages each link carried since
// the last snapshot (GET /sim/snapshot's network.links), drawn as one moving dot per link and direction whose
// size grows with the count: aggregated per link and frame, so a busy cluster at 10x costs the same as an idle one.
import type { Snapshot } from './model.ts';
import { brokerColour, STATE_COLOURS } from './palette.ts';
import { svg } from './svg.ts';

const W = 640;
const H = 300;
const MAX_CLIENTS = 10;

interface NodeBox {
  id: string;
  x: number;
  y: number;
}

interface Flow {
  from: NodeBox;
  to: NodeBox;
  count: number;
}

export class ClusterView {
  readonly root: SVGSVGElement;
  private readonly nodesLayer: SVGGElement;
  private readonly linksLayer: SVGGElement;
  private readonly dotsLayer: SVGGElement;
  private previous = new Map<string, number>();
  private flows: Flow[] = [];
  private flowStart = 0;
  private flowPeriod = 250;
  private readonly dots: SVGCircleElement[] = [];
  /** Whether each dot is drawn (r > 0): a hidden one is not touched again until it moves. */
  private readonly dotShown: boolean[] = [];
  /** The links drawn, by node pair, kept from one snapshot to the next (updated only when they change). */
  private readonly links = new Map<string, SVGPathElement>();
  private readonly nodes = new Map<string, DrawnNode>();
  /** Says which sides a network cut made (empty when there is none). */
  private readonly caption: SVGTextElement;
  selected: string | undefined;
  onSelect: (node: string) => void = () => {};
  onDropPartition: (broker: number, key: string) => void = () => {};

  constructor(container: HTMLElement) {
    this.root = svg('svg', {
      viewBox: `0 0 ${W} ${H}`,
      role: 'img',
      'aria-label': 'cluster',
      id: 'cluster-svg',
    });
    container.appendChild(this.root);
    this.linksLayer = svg('g', {}, this.root);
    this.dotsLayer = svg('g', {}, this.root);
    this.nodesLayer = svg('g', {}, this.root);
    this.caption = svg('text', { x: 6, y: H - 6, class: 'cut-caption', id: 'cut-caption' }, this.root);
  }

  private layout(s: Snapshot): Map<string, NodeBox> {
    const boxes = new Map<string, NodeBox>();
    const row = (ids: string[], y: number) =>
      ids.forEach((id, i) => {
        boxes.set(id, { id, x: ((i + 0.5) * W) / Math.max(1, ids.length), y });
      });
    row(
      s.controllers.map((c) => c.node),
      40,
    );
    row(
      s.brokers.map((b) => `broker-${b.broker_id}`),
      150,
    );
    const clients = new Set<string>();
    for (const l of s.network.links)
      for (const n of [l.from, l.to]) if (!boxes.has(n) && !n.startsWith('controller-')) clients.add(n);
    row([...clients].sort().slice(0, MAX_CLIENTS), 262);
    return boxes;
  }

  update(s: Snapshot, wallNow: number): void {
    const boxes = this.layout(s);
    this.drawNodes(s, boxes);
    // Traffic since the last snapshot, per link (both directions of a pair drawn separately).
    const flows: Flow[] = [];
    const next = new Map<string, number>();
    const linkPairs = new Set<string>();
    for (const l of s.network.links) {
      const key = `${l.from}>${l.to}`;
      next.set(key, l.sent);
      const from = boxes.get(l.from);
      const to = boxes.get(l.to);
      if (!from || !to) continue;
      linkPairs.add([l.from, l.to].sort().join('|'));
      const delta = l.sent - (this.previous.get(key) ?? l.sent);
      if (delta > 0) flows.push({ from, to, count: delta });
    }
    this.previous = next;
    this.flowPeriod = Math.max(100, Math.min(1000, wallNow - this.flowStart));
    this.flowStart = wallNow;
    this.flows = flows;
    const side = sidesOf(s);
    const isolated = new Set(s.faults.isolated ?? []);
    for (const [pair, path] of this.links)
      if (!linkPairs.has(pair)) {
        path.remove();
        this.links.delete(pair);
      }
    for (const pair of [...linkPairs].sort()) {
      const [a, b] = pair.split('|') as [string, string];
      const p = boxes.get(a)!;
      const q = boxes.get(b)!;
      const cut = side(a) !== side(b) || isolated.has(a) || isolated.has(b);
      const c = controlPoint(p, q);
      let path = this.links.get(pair);
      if (!path) {
        path = svg('path', { 'data-link': pair }, this.linksLayer);
        this.links.set(pair, path);
      }
      setAttrs(path, { d: `M${p.x},${p.y} Q${c.x},${c.y} ${q.x},${q.y}`, class: cut ? 'link cut' : 'link' });
    }
    if (this.caption.textContent !== cutCaption(s)) this.caption.textContent = cutCaption(s);
  }

  /**
   * Moves the traffic dots (called every animation frame while they move); true while some dot has further to
   * go. Dots that are done are hidden once, so a frame with nothing moving changes nothing.
   */
  animate(wallNow: number): boolean {
    const f = Math.min(1, (wallNow - this.flowStart) / this.flowPeriod);
    while (this.dots.length < this.flows.length) {
      this.dots.push(svg('circle', { class: 'dot', r: 0 }, this.dotsLayer));
      this.dotShown.push(false);
    }
    this.dots.forEach((dot, i) => {
      const flow = this.flows[i];
      if (!flow || f >= 1) {
        if (this.dotShown[i]) {
          dot.setAttribute('r', '0');
          this.dotShown[i] = false;
        }
        return;
      }
      this.dotShown[i] = true;
      // Along the link's curve (a quadratic Bézier through its control point).
      const a = flow.from;
      const b = flow.to;
      const c = controlPoint(a, b);
      const u = 1 - f;
      dot.setAttribute('cx', String(u * u * a.x + 2 * u * f * c.x + f * f * b.x));
      dot.setAttribute('cy', String(u * u * a.y + 2 * u * f * c.y + f * f * b.y));
      dot.setAttribute('r', String(Math.min(9, 2 + Math.log2(flow.count))));
    });
    return f < 1 && this.flows.length > 0;
  }

  private drawNodes(s: Snapshot, boxes: Map<string, NodeBox>): void {
    const slow = s.faults.slow ?? {};
    const isolated = new Set(s.faults.isolated ?? []);
    const side = sidesOf(s);
    const cutNote = (id: string) => (s.faults.partition ? ` · side ${side(id)}` : '');
    const shown = new Set<string>();
    for (const c of s.controllers) {
      const b = boxes.get(c.node)!;
      const state = c.status !== 'up' ? 'down' : c.active ? 'up' : 'idle';
      const label = c.status !== 'up' ? 'crashed' : `${c.role}${c.active ? ' (active)' : ''}`;
      shown.add(c.node);
      this.node(
        b,
        c.node.replace('controller-', 'controller '),
        [`${label}${cutNote(c.node)}`, `epoch ${c.epoch} · HW ${c.high_watermark ?? '-'}`],
        STATE_COLOURS[state],
        'controller',
        isolated.has(c.node),
      );
    }
    s.brokers.forEach((br, i) => {
      const id = `broker-${br.broker_id}`;
      const b = boxes.get(id)!;
      const up = br.status === 'up';
      // Fenced as the controller has it (an isolated broker does not know it was fenced).
      const fenced = br.fenced || s.metadata.brokers[br.broker_id]?.fenced === true;
      const state = !up ? 'down' : fenced ? 'fenced' : slow[id] ? 'slow' : 'up';
      const word = !up ? br.status : fenced ? 'fenced' : slow[id] ? `slow +${slow[id]}ms` : 'up';
      const leaders = countLeaders(s, br.broker_id);
      shown.add(id);
      const n = this.node(
        b,
        `broker ${br.broker_id}`,
        [`${word}${cutNote(id)}`, `${leaders} leaders · ${br.replicas} replicas`],
        STATE_COLOURS[state],
        'broker',
        isolated.has(id),
      );
      if (!n.stripe) {
        // The broker's own colour (the partition cells it leads have it); a partition cell dropped here moves.
        n.stripe = svg('rect', { width: 8, height: 60 }, n.g);
        n.g.dataset.broker = String(br.broker_id);
        n.g.addEventListener('dragover', (ev) => ev.preventDefault());
        n.g.addEventListener('drop', (ev) => {
          ev.preventDefault();
          const key = ev.dataTransfer?.getData('text/plain');
          if (key) this.onDropPartition(br.broker_id, key);
        });
      }
      setAttrs(n.stripe, { x: b.x - 58, y: b.y - 30, fill: brokerColour(i) });
    });
    for (const [id, b] of boxes) {
      if (id.startsWith('broker-') || id.startsWith('controller-')) continue;
      shown.add(id);
      this.node(b, id, [`client${cutNote(id)}`], STATE_COLOURS.idle, 'client', isolated.has(id), 22);
    }
    for (const [id, n] of this.nodes)
      if (!shown.has(id)) {
        n.g.remove();
        this.nodes.delete(id);
      }
  }

  /**
   * One node, updated in place: a node keeps its elements from one snapshot to the next, so a click or a
   * partition dragged onto it is never lost to a redraw (a pointer press on an element that a 4-per-second
   * redraw replaced would land on a detached copy).
   */
  private node(
    b: NodeBox,
    title: string,
    lines: string[],
    colour: string,
    kind: string,
    isolated: boolean,
    half = 30,
  ): DrawnNode {
    let n = this.nodes.get(b.id);
    if (!n) {
      const g = svg('g', { 'data-node': b.id, tabindex: 0 }, this.nodesLayer);
      const frame = svg('rect', { width: 120, rx: 6, fill: '#fff', 'stroke-width': 4 }, g);
      const heading = svg('text', { 'text-anchor': 'middle', class: 'title' }, g);
      const subs = [0, 1]
        .slice(0, half > 25 ? 2 : 1)
        .map(() => svg('text', { 'text-anchor': 'middle', class: 'sub' }, g));
      g.addEventListener('click', () => this.onSelect(b.id));
      n = { g, frame, heading, subs };
      this.nodes.set(b.id, n);
    }
    setAttrs(n.g, { class: `node ${kind}${this.selected === b.id ? ' selected' : ''}` });
    setAttrs(n.frame, {
      x: b.x - 60,
      y: b.y - half,
      height: half * 2,
      stroke: colour,
      'stroke-dasharray': isolated ? '6 4' : '',
    });
    // A broker's text is centred right of its colour bar (the bar takes the frame's left 10 px) and squeezed to
    // the room left when it is longer ("12 leaders · 152 replicas"), so the bar never covers it.
    const left = kind === 'broker' ? STRIPE_ROOM : 0;
    const room = 112 - left;
    const textX = b.x + left / 2;
    setAttrs(n.heading, { x: textX, y: b.y - half + 16 });
    setText(n.heading, title);
    n.subs.forEach((l, i) => {
      setAttrs(l, { x: textX, y: b.y - half + 31 + i * 14 });
      const line = lines[i] ?? '';
      if (setText(l, isolated && i === 0 ? `${line} · isolated` : line)) fitText(l, room);
    });
    return n;
  }
}

interface DrawnNode {
  g: SVGGElement;
  frame: SVGRectElement;
  heading: SVGTextElement;
  subs: SVGTextElement[];
  /** A broker's colour bar (brokers only). */
  stripe?: SVGRectElement;
}

function setAttrs(el: Element, attrs: Record<string, string | number>): void {
  for (const [k, v] of Object.entries(attrs))
    if (el.getAttribute(k) !== String(v)) el.setAttribute(k, String(v));
}

/** Sets the text; true when it changed. */
function setText(el: Element, text: string): boolean {
  if (el.textContent === text) return false;
  el.textContent = text;
  return true;
}

/** The left part of a broker's frame its colour bar takes (the bar is 8 px wide, 2 px in). */
const STRIPE_ROOM = 10;

/** Squeezes an SVG text into `room` px when it is wider (measured once per change of its text). */
function fitText(el: SVGTextElement, room: number): void {
  el.removeAttribute('textLength');
  el.removeAttribute('lengthAdjust');
  // getComputedTextLength is 0 before the element is laid out (e.g. hidden): leave it unsqueezed then.
  if (el.getComputedTextLength() > room) {
    el.setAttribute('textLength', String(room));
    el.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
}

/**
 * A link's control point: links between nodes of one row bend (above the row, further for longer links) so they
 * do not run through the nodes between (the top row bends down, the others up); other links are straight. Symmetric in its ends, so both directions of
 * a link share one curve.
 */
function controlPoint(p: { x: number; y: number }, q: { x: number; y: number }): { x: number; y: number } {
  const mx = (p.x + q.x) / 2;
  const my = (p.y + q.y) / 2;
  if (Math.abs(p.y - q.y) > 1) return { x: mx, y: my };
  const bend = 30 + Math.abs(p.x - q.x) * 0.1;
  return { x: mx, y: my < H / 3 ? my + bend : my - bend };
}

/** The side of a network cut each node is on (A, B, ...; the nodes no group lists are the last side). */
function sidesOf(s: Snapshot): (node: string) => string {
  const groups = s.faults.partition;
  if (!groups) return () => '';
  const letter = (i: number) => String.fromCharCode(65 + (i % 26));
  const of = new Map<string, string>();
  groups.forEach((g, i) => {
    for (const n of g) of.set(n, letter(i));
  });
  return (node) => of.get(node) ?? letter(groups.length);
}

function cutCaption(s: Snapshot): string {
  const parts: string[] = [];
  const groups = s.faults.partition;
  if (groups) {
    const letter = (i: number) => String.fromCharCode(65 + (i % 26));
    parts.push(
      `network cut: ${groups.map((g, i) => `${letter(i)} {${g.join(', ')}}`).join(' | ')} | ${letter(groups.length)} {the rest}`,
    );
  }
  if ((s.faults.isolated ?? []).length > 0) parts.push(`isolated: ${s.faults.isolated.join(', ')}`);
  return parts.join(' · ');
}

function countLeaders(s: Snapshot, broker: number): number {
  let n = 0;
  for (const t of Object.values(s.metadata.topics))
    for (const p of t.partitions) if (p.leader === broker) n++;
  return n;
}
