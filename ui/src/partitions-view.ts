// Partitions as a dense grid: one cell per partition, coloured by its leader's broker colour with the leader's id
// written in it; a dashed border marks a partition whose ISR is smaller than its replica set, a diagonal stripe
// one whose reassignment is in flight, and "-" one without a leader. Cells are updated in place (only those that
// changed), so a thousand partitions redraw in well under a frame. Cells can be dragged onto a broker to move
// the partition there (an ordinary reassignment request).
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

  constructor(private readonly container: HTMLElement) {}

  update(s: Snapshot): void {
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
            { class: 'cell', draggable: 'true', 'data-tp': `${name}-${p.partition}` },
            '',
            grid,
          );
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

  /** Every partition's leader as the grid shows it ("topic-p" -> leader), for tests and the diff view. */
  leaders(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const c of this.cells.values()) out[c.el.dataset.tp!] = Number(c.el.dataset.leader);
    return out;
  }
}

function stateOf(p: PartitionReg): string {
  return `${p.leader}|${p.replicas}|${p.isr}|${p.addingReplicas}|${p.removingReplicas}`;
}
