// Two branches side by side at the same moment (each read with GET /sim/branches/:id/snapshot?at_ms=): for each,
// its trace hash, its brokers and its partition grid, the cells that differ between the two outlined and marked
// "≠" (a mark, not only a colour); below, a table of what differs, the brokers, the workloads' counters and the
// partitions, differing rows highlighted.
import type { Snapshot } from './model.ts';
import { PartitionsView } from './partitions-view.ts';
import { html } from './svg.ts';

export interface Side {
  name: string;
  snapshot: Snapshot;
}

/** Draws the comparison into `el` (replacing what it had); returns how many rows of the table differ. */
export function renderCompare(el: HTMLElement, a: Side, b: Side, onClose: () => void): number {
  el.replaceChildren();
  el.hidden = false;
  const head = html('div', { class: 'compare-head' }, undefined, el);
  html('h2', {}, `${a.name} vs ${b.name} at ${a.snapshot.clock.now}`, head);
  const close = html('button', { type: 'button', id: 'compare-close' }, 'close', head);
  close.addEventListener('click', onClose);

  const differing = differingPartitions(a.snapshot, b.snapshot);
  const columns = html('div', { class: 'compare-columns' }, undefined, el);
  for (const side of [a, b]) {
    const col = html('div', { class: 'compare-side', 'data-branch-name': side.name }, undefined, columns);
    const s = side.snapshot;
    html('h3', {}, `${side.name}: ${s.events} events · trace ${s.trace.hash}`, col);
    html(
      'p',
      { class: 'compare-brokers' },
      s.brokers.map((br) => `broker ${br.broker_id} ${brokerWord(s, br.broker_id)}`).join(' · '),
      col,
    );
    const grid = new PartitionsView(html('div', {}, undefined, col), { draggable: false, movingId: null });
    grid.update(s);
    for (const tp of differing) grid.mark(tp, 'diff');
  }

  const table = html('table', { class: 'compare' }, undefined, el);
  const header = html('tr', {}, undefined, table);
  for (const h of ['', a.name, b.name]) html('th', {}, h, header);
  const row = (label: string, u: string, v: string) => {
    const tr = html('tr', { class: u === v ? 'same' : 'diff' }, undefined, table);
    html('th', {}, label, tr);
    html('td', {}, u, tr);
    html('td', {}, v, tr);
  };
  const x = a.snapshot;
  const y = b.snapshot;
  row('trace hash', x.trace.hash, y.trace.hash);
  row('events', String(x.events), String(y.events));
  for (const br of x.brokers)
    row(
      `broker ${br.broker_id}`,
      brokerWord(x, br.broker_id),
      y.brokers.some((z) => z.broker_id === br.broker_id) ? brokerWord(y, br.broker_id) : '-',
    );
  const workloads = new Set([...x.workloads, ...y.workloads].map((w) => w.name));
  for (const name of workloads) {
    const counters = (s: Snapshot) => {
      const w = s.workloads.find((z) => z.name === name);
      if (!w) return 'absent';
      const stats = Object.entries(w.stats)
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => `${k} ${v}`)
        .join(' · ');
      return `${w.state}${stats ? ` · ${stats}` : ''}`;
    };
    row(name, counters(x), counters(y));
  }
  for (const tp of differing) row(tp, partitionWords(x, tp), partitionWords(y, tp));
  const count = table.querySelectorAll('tr.diff').length;
  html(
    'p',
    { id: 'compare-summary', 'data-diffs': String(count), 'data-partitions': String(differing.length) },
    `${count} difference(s) highlighted, ${differing.length} of them partitions (outlined and marked ≠ in the grids).`,
    el,
  );
  return count;
}

function brokerWord(s: Snapshot, id: number): string {
  const br = s.brokers.find((z) => z.broker_id === id);
  if (!br) return '-';
  return `${br.status}${br.fenced || s.metadata.brokers[id]?.fenced ? ' fenced' : ''}`;
}

function partitionWords(s: Snapshot, tp: string): string {
  const cut = tp.lastIndexOf('-');
  const p = s.metadata.topics[tp.slice(0, cut)]?.partitions[Number(tp.slice(cut + 1))];
  return p ? `leader ${p.leader} replicas [${p.replicas}] ISR [${p.isr}]` : 'absent';
}

/** The partitions ("topic-p") whose leader, replicas or ISR differ, or that one branch lacks. */
function differingPartitions(x: Snapshot, y: Snapshot): string[] {
  const out: string[] = [];
  const topics = [...new Set([...Object.keys(x.metadata.topics), ...Object.keys(y.metadata.topics)])].sort();
  for (const topic of topics) {
    const u = x.metadata.topics[topic]?.partitions ?? [];
    const v = y.metadata.topics[topic]?.partitions ?? [];
    for (let i = 0; i < Math.max(u.length, v.length); i++) {
      const p = u[i];
      const q = v[i];
      const same =
        p && q && p.leader === q.leader && `${p.replicas}` === `${q.replicas}` && `${p.isr}` === `${q.isr}`;
      if (!same) out.push(`${topic}-${i}`);
    }
  }
  return out;
}
