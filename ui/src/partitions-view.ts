// Partitions as a dense grid: one cell per partition, coloured by its leader's broker colour with the leader's id
// written in it; a dashed border marks a partition whose ISR is smaller than its replica set, a diagonal stripe
// one whose reassignment is in flight, and "-" one without a leader. Cells are updated in place (only those that
// changed), so a thousand partitions redraw in well under a frame. Cells can be dragged onto a broker to move
// the partition there (an ordinary reassignment request). Above the grid, the reassignments in flight are listed:
// from which replicas to which, how many of the new replicas have caught up (joined the ISR), and for how long
// the move has run (virtual time, since the page first saw it).
import type { PartitionReg, Snapshot } from './model.ts';
import { brokerColour, textOn } from './palette.ts';
import { html } from './svg.ts';

interface Cell {
  el: HTMLDivElement;
  state: string;
}

export class PartitionsView {
  private readonly cells = new Map<string, Cell>();
  private readonly sections = new Map<string, HTMLElement>();
  private readonly moving: HTMLElement;
  /** When the page first saw each reassignment in flight (virtual ms), by "topic-partition". */
  private readonly movingSince = new Map<string, number>();

  private readonly draggable: boolean;

  /** The live view's grid has cells to drag and its list of moves is #moving; a comparison's has neither. */
  constructor(
    private readonly container: HTMLElement,
    options: { draggable: boolean; movingId: string | null } = { draggable: true, movingId: 'moving' },
  ) {
    this.draggable = options.draggable;
    this.moving = html(
      'div',
      { class: 'moving', ...(options.movingId ? { id: options.movingId } : {}) },
      undefined,
      container,
    );
  }

  update(s: Snapshot): void {
    this.drawMoving(s);
    const brokerIndex = new Map(s.brokers.map((b, i) => [b.broker_id, i]));
    const names = Object.keys(s.metadata.topics).sort();
    for (const [name, section] of this.sections)
      if (!s.metadata.topics[name]) {
        section.remove();
        this.sections.delete(name);
        for (const key of [...this.cells.keys()]) if (key.startsWith(`${name}\u0000`)) this.cells.delete(key);
      }
    for (const name of names) {
      const topic = s.metadata.topics[name]!;
      let section = this.sections.get(name);
      if (!section) {
        section = html('section', { class: 'topic', 'data-topic': name }, undefined, this.container);
        html('h3', {}, name, section);
        html('div', { class: 'grid' }, undefined, section);
        this.sections.set(name, section);
      }
      const grid = section.querySelector('.grid') as HTMLElement;
      (section.querySelector('h3') as HTMLElement).textContent =
        `${name} (${topic.partitions.length} partitions, RF ${topic.partitions[0]?.replicas.length ?? 0})`;
      for (const p of topic.partitions) {
        const key = `${name}\u0000${p.partition}`;
        let cell = this.cells.get(key);
        if (!cell) {
          const el = html(
            'div',
            { class: 'cell', draggable: String(this.draggable), 'data-tp': `${name}-${p.partition}` },
            '',
            grid,
          );
          if (this.draggable)
            el.addEventListener('dragstart', (ev) => ev.dataTransfer?.setData('text/plain', key));
          cell = { el, state: '' };
          this.cells.set(key, cell);
        }
        const state = stateOf(p);
        if (state === cell.state) continue;
        cell.state = state;
        const el = cell.el;
        const moving = p.addingReplicas.length > 0 || p.removingReplicas.length > 0;
        const under = p.isr.length < p.replicas.length;
        const colour = p.leader >= 0 ? brokerColour(brokerIndex.get(p.leader) ?? p.leader) : '#ffffff';
        el.style.backgroundColor = colour;
        el.style.color = p.leader >= 0 ? textOn(colour) : '#000';
        el.textContent = p.leader >= 0 ? String(p.leader) : '-';
        el.dataset.leader = String(p.leader);
        el.classList.toggle('under', under);
        el.classList.toggle('moving', moving);
        el.title =
          `${name}-${p.partition}: leader ${p.leader < 0 ? 'none' : p.leader}, replicas [${p.replicas}], ISR [${p.isr}]` +
          (moving ? `, moving: adding [${p.addingReplicas}] removing [${p.removingReplicas}]` : '') +
          (under ? ' (under-replicated)' : '');
      }
    }
  }

  /** The reassignments in flight, one line each (the first MAX_MOVING_LINES), with the number in the heading. */
  private drawMoving(s: Snapshot): void {
    const lines: { tp: string; text: string }[] = [];
    const now = s.clock.now_ms;
    const seen = new Set<string>();
    for (const name of Object.keys(s.metadata.topics).sort())
      for (const p of s.metadata.topics[name]!.partitions) {
        if (p.addingReplicas.length === 0 && p.removingReplicas.length === 0) continue;
        const tp = `${name}-${p.partition}`;
        seen.add(tp);
        // A rewind can make the page's first sighting later than the moment shown: start again from here.
        const since = Math.min(this.movingSince.get(tp) ?? now, now);
        this.movingSince.set(tp, since);
        lines.push({ tp, text: movingLine(tp, p, now - since) });
      }
    for (const tp of [...this.movingSince.keys()]) if (!seen.has(tp)) this.movingSince.delete(tp);
    const key = lines.map((l) => l.text).join('\n');
    if (this.moving.dataset.key === key) return;
    this.moving.dataset.key = key;
    this.moving.dataset.count = String(lines.length);
    this.moving.replaceChildren();
    if (lines.length === 0) return;
    html('h3', {}, `Reassignments in flight: ${lines.length}`, this.moving);
    const list = html('ul', {}, undefined, this.moving);
    for (const l of lines.slice(0, MAX_MOVING_LINES)) html('li', { 'data-tp': l.tp }, l.text, list);
    if (lines.length > MAX_MOVING_LINES)
      html('li', { class: 'more' }, `and ${lines.length - MAX_MOVING_LINES} more (striped cells)`, list);
  }

  /** Adds a class to one partition's cell ("topic-p"), e.g. 'diff' in a comparison. */
  mark(tp: string, cls: string): void {
    const cut = tp.lastIndexOf('-');
    this.cells.get(`${tp.slice(0, cut)}\u0000${tp.slice(cut + 1)}`)?.el.classList.add(cls);
  }

  /** Every partition's leader as the grid shows it ("topic-p" -> leader), for tests and the diff view. */
  leaders(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const c of this.cells.values()) out[c.el.dataset.tp!] = Number(c.el.dataset.leader);
    return out;
  }
}

const MAX_MOVING_LINES = 20;

/**
 * One reassignment in words. While it runs the replica set is the old and the new together (Kafka's
 * PartitionRegistration: replicas = target + removing); it is done when every adding replica has joined the ISR.
 */
export function movingLine(tp: string, p: PartitionReg, forMs: number): string {
  const from = p.replicas.filter((r) => !p.addingReplicas.includes(r));
  const to = p.replicas.filter((r) => !p.removingReplicas.includes(r));
  const caught = p.addingReplicas.filter((r) => p.isr.includes(r)).length;
  return (
    `${tp}: [${from}] -> [${to}]` +
    (p.addingReplicas.length > 0
      ? ` · adding [${p.addingReplicas}], ${caught} of ${p.addingReplicas.length} caught up (in the ISR)`
      : '') +
    (p.removingReplicas.length > 0 ? ` · removing [${p.removingReplicas}]` : '') +
    ` · for ${(forMs / 1000).toFixed(1)} s`
  );
}

function stateOf(p: PartitionReg): string {
  return `${p.leader}|${p.replicas}|${p.isr}|${p.addingReplicas}|${p.removingReplicas}`;
}
