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
    this.linksLayer.replaceChildren();
    for (const pair of linkPairs) {
      const [a, b] = pair.split('|');
      const p = boxes.get(a!)!;
      const q = boxes.get(b!)!;
      svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: 'link' }, this.linksLayer);
    }
  }

  /** Moves the traffic dots (called every animation frame). */
  animate(wallNow: number): void {
    const f = Math.min(1, (wallNow - this.flowStart) / this.flowPeriod);
    while (this.dots.length < this.flows.length)
      this.dots.push(svg('circle', { class: 'dot' }, this.dotsLayer));
    this.dots.forEach((dot, i) => {
      const flow = this.flows[i];
      if (!flow || f >= 1) {
        dot.setAttribute('r', '0');
        return;
      }
      dot.setAttribute('cx', String(flow.from.x + (flow.to.x - flow.from.x) * f));
      dot.setAttribute('cy', String(flow.from.y + (flow.to.y - flow.from.y) * f));
      dot.setAttribute('r', String(Math.min(9, 2 + Math.log2(flow.count))));
    });
  }

  private drawNodes(s: Snapshot, boxes: Map<string, NodeBox>): void {
    const layer = this.nodesLayer;
    layer.replaceChildren();
    const slow = s.faults.slow ?? {};
    const isolated = new Set(s.faults.isolated ?? []);
    for (const c of s.controllers) {
      const b = boxes.get(c.node)!;
      const state = c.status !== 'up' ? 'down' : c.active ? 'up' : 'idle';
      const label = c.status !== 'up' ? 'crashed' : `${c.role}${c.active ? ' (active)' : ''}`;
      this.node(
        layer,
        b,
        c.node.replace('controller-', 'controller '),
        [label, `epoch ${c.epoch} · HW ${c.high_watermark ?? '-'}`],
        STATE_COLOURS[state],
        'controller',
        isolated.has(c.node),
      );
    }
    s.brokers.forEach((br, i) => {
      const id = `broker-${br.broker_id}`;
      const b = boxes.get(id)!;
      const up = br.status === 'up';
      const state = !up ? 'down' : br.fenced ? 'fenced' : slow[id] ? 'slow' : 'up';
      const word = !up ? br.status : br.fenced ? 'fenced' : slow[id] ? `slow +${slow[id]}ms` : 'up';
      const leaders = countLeaders(s, br.broker_id);
      const g = this.node(
        layer,
        b,
        `broker ${br.broker_id}`,
        [word, `${leaders} leaders · ${br.replicas} replicas`],
        STATE_COLOURS[state],
        'broker',
        isolated.has(id),
      );
      svg('rect', { x: b.x - 58, y: b.y - 30, width: 8, height: 60, fill: brokerColour(i) }, g);
      g.dataset.broker = String(br.broker_id);
      g.addEventListener('dragover', (ev) => ev.preventDefault());
      g.addEventListener('drop', (ev) => {
        ev.preventDefault();
        const key = ev.dataTransfer?.getData('text/plain');
        if (key) this.onDropPartition(br.broker_id, key);
      });
    });
    for (const [id, b] of boxes) {
      if (id.startsWith('broker-') || id.startsWith('controller-')) continue;
      this.node(layer, b, id, ['client'], STATE_COLOURS.idle, 'client', isolated.has(id), 22);
    }
  }

  private node(
    layer: SVGGElement,
    b: NodeBox,
    title: string,
    lines: string[],
    colour: string,
    kind: string,
    isolated: boolean,
    half = 30,
  ): SVGGElement {
    const g = svg(
      'g',
      { class: `node ${kind}${this.selected === b.id ? ' selected' : ''}`, 'data-node': b.id, tabindex: 0 },
      layer,
    );
    svg(
      'rect',
      {
        x: b.x - 60,
        y: b.y - half,
        width: 120,
        height: half * 2,
        rx: 6,
        fill: '#fff',
        stroke: colour,
        'stroke-width': 4,
        'stroke-dasharray': isolated ? '6 4' : '',
      },
      g,
    );
    const t = svg('text', { x: b.x, y: b.y - half + 16, 'text-anchor': 'middle', class: 'title' }, g);
    t.textContent = title;
    lines.slice(0, half > 25 ? 2 : 1).forEach((line, i) => {
      const l = svg(
        'text',
        { x: b.x, y: b.y - half + 31 + i * 14, 'text-anchor': 'middle', class: 'sub' },
        g,
      );
      l.textContent = isolated && i === 0 ? `${line} · isolated` : line;
    });
    g.addEventListener('click', () => this.onSelect(b.id));
    return g;
  }
}

function countLeaders(s: Snapshot, broker: number): number {
  let n = 0;
  for (const t of Object.values(s.metadata.topics))
    for (const p of t.partitions) if (p.leader === broker) n++;
  return n;
}
