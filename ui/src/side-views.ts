// The smaller panels: consumer groups, the auto-balancer (each broker's load against the band, and its
// decisions with their reasons), the Lake (each table's rows per Kafka partition, and each ingest service's
// counters: rows, errors, lost batches), and the workloads
// (producers and consumers) with start/stop buttons.
import type { GroupView, LessonClient, Snapshot, TraceEvent, WorkloadView } from './model.ts';
import { html } from './svg.ts';

/** Redraws a panel only when what it shows changed (a string key of its data). */
export class Panel {
  private key = '';
  constructor(readonly el: HTMLElement) {}
  draw(key: string, render: (el: HTMLElement) => void): void {
    if (key === this.key) return;
    this.key = key;
    this.el.replaceChildren();
    render(this.el);
  }
}

type TP = { topic: string; partition: number };
const tpName = (tp: TP) => `${tp.topic}-${tp.partition}`;

/** A group's heading: state, protocol, generation (classic) or group epoch (KIP-848), members and lag. */
function groupHeading(g: GroupView, lag: number): string {
  const protocol =
    g.type === 'consumer'
      ? `consumer protocol (KIP-848) · group epoch ${g.group_epoch}` +
        (g.assignment_epoch !== g.group_epoch ? ` · target at epoch ${g.assignment_epoch}` : '')
      : `classic${g.generation !== null ? ` · generation ${g.generation}` : ''}`;
  return `${g.group_id}: ${g.state} · ${protocol} · ${g.members.length} member(s) · lag ${lag}`;
}

/**
 * The consumer groups. A classic group: each member's partitions with their lag. A consumer-protocol (KIP-848)
 * group also shows each member's epoch (marked when behind the group epoch) and state, and its target beside
 * what it owns: partitions it must still give up are marked "revoking", those it waits for (still owned by
 * another member) "waiting".
 */
export function drawGroups(panel: Panel, s: Snapshot): void {
  panel.draw(JSON.stringify(s.groups), (el) => {
    if (s.groups.length === 0) html('p', { class: 'empty' }, 'No consumer groups yet.', el);
    for (const g of s.groups) {
      const lag = g.offsets.reduce((n, o) => n + (o.lag ?? 0), 0);
      html('h3', {}, groupHeading(g, lag), el);
      const kip848 = g.type === 'consumer';
      const table = html('table', { class: 'group', 'data-group': g.group_id }, undefined, el);
      const head = html('tr', {}, undefined, table);
      const columns = kip848
        ? ['member', 'member epoch', 'state', 'owns (lag)', 'target', 'lag']
        : ['member', 'partitions (lag)', 'lag'];
      for (const h of columns) html('th', {}, h, head);
      const lagOf = new Map(g.offsets.map((o) => [`${o.topic}-${o.partition}`, o.lag]));
      for (const m of g.members) {
        const tr = html('tr', { 'data-member': m.consumer_id }, undefined, table);
        html('td', {}, m.client_id || m.consumer_id.slice(0, 24), tr);
        if (kip848) {
          const behind = m.member_epoch !== g.group_epoch;
          html('td', behind ? { class: 'behind' } : {}, `${m.member_epoch}${behind ? ' (behind)' : ''}`, tr);
          html('td', {}, m.member_state ?? '', tr);
        }
        const owns = html('td', { class: 'owns' }, undefined, tr);
        owns.append(m.assignment.map((a) => `${tpName(a)} (${lagOf.get(tpName(a)) ?? '-'})`).join(' '));
        for (const a of m.pending_revocation ?? [])
          html('span', { class: 'revoking' }, ` ${tpName(a)} revoking`, owns);
        if (kip848) {
          const target = html('td', { class: 'target' }, undefined, tr);
          const waiting = new Set((m.pending_assignment ?? []).map(tpName));
          for (const a of m.target_assignment ?? [])
            if (waiting.has(tpName(a))) html('span', { class: 'waiting' }, `${tpName(a)} waiting `, target);
            else target.append(`${tpName(a)} `);
        }
        const mine = new Set(m.assignment.map(tpName));
        html(
          'td',
          {},
          String(g.offsets.filter((o) => mine.has(tpName(o))).reduce((n, o) => n + (o.lag ?? 0), 0)),
          tr,
        );
      }
    }
  });
}

interface BrokerLoad {
  brokerId: number;
  bytesIn: number;
  bytesOut: number;
  partitions: number;
}

/** What the balancer last said (from the live trace). */
export class BalancerState {
  loads: BrokerLoad[] = [];
  band: { lowerBound: number; upperBound: number; avg: number } | undefined;
  decisions: { t: number; text: string }[] = [];

  onEvent(e: TraceEvent, text: string | undefined): void {
    if (e.kind === 'balancer.detect' && Array.isArray(e.brokers)) this.loads = e.brokers as BrokerLoad[];
    else if (e.kind === 'balancer.band' && String(e.goal).startsWith('NetworkIn'))
      this.band = e.band as BalancerState['band'];
    if (text && e.kind.startsWith('balancer.')) {
      this.decisions.push({ t: e.t, text });
      if (this.decisions.length > 50) this.decisions.shift();
    }
  }

  reset(): void {
    this.loads = [];
    this.band = undefined;
    this.decisions = [];
  }
}

export function drawBalancer(panel: Panel, b: BalancerState): void {
  panel.draw(JSON.stringify([b.loads, b.band, b.decisions.length]), (el) => {
    if (b.loads.length === 0) {
      html(
        'p',
        { class: 'empty' },
        'No balancer decision yet (runs with autobalancer.controller.enable=true).',
        el,
      );
      return;
    }
    const max = Math.max(1, ...b.loads.map((l) => l.bytesIn), b.band?.upperBound ?? 0);
    for (const l of b.loads) {
      const row = html('div', { class: 'load-row', 'data-broker': String(l.brokerId) }, undefined, el);
      html('span', { class: 'load-label' }, `broker ${l.brokerId}`, row);
      const bar = html('span', { class: 'load-bar' }, undefined, row);
      const outside = b.band && (l.bytesIn > b.band.upperBound || l.bytesIn < b.band.lowerBound);
      html(
        'span',
        { class: `load-fill${outside ? ' outside' : ''}`, style: `width:${(100 * l.bytesIn) / max}%` },
        '',
        bar,
      );
      if (b.band)
        html(
          'span',
          {
            class: 'band',
            style: `left:${(100 * b.band.lowerBound) / max}%;width:${(100 * (b.band.upperBound - b.band.lowerBound)) / max}%`,
          },
          '',
          bar,
        );
      html(
        'span',
        { class: 'load-value' },
        `${Math.round(l.bytesIn / 1024)} KiB/s in · ${l.partitions} p${outside ? ' · outside band' : ''}`,
        row,
      );
    }
    const list = html('ol', { class: 'decisions' }, undefined, el);
    for (const d of b.decisions.slice(-12)) html('li', {}, `${(d.t / 1000).toFixed(1)} s  ${d.text}`, list);
  });
}

/** A lesson's own clients (the scenario's producers, consumers, groups, ingest services): started by its steps. */
function drawLessonClients(el: HTMLElement, clients: LessonClient[]): void {
  for (const c of clients) {
    const stats = Object.entries(c.stats)
      .map(([k, v]) => `${k} ${v}`)
      .join(' · ');
    html(
      'div',
      { class: 'workload', 'data-workload': c.name },
      `${c.name} (the lesson's): ${c.started ? `running · ${stats}` : 'not started yet'}`,
      el,
    );
  }
}

const MAX_LAKE_PARTITION_ROWS = 64;

export function drawLake(panel: Panel, s: Snapshot): void {
  const ingest = s.workloads.filter((w) => w.kind === 'ingest');
  const lessonIngest = (s.lesson?.clients ?? []).filter((c) => 'rowsTotal' in c.stats);
  const tables = s.lake?.tables ?? [];
  panel.draw(JSON.stringify([ingest.map((w) => w.stats), lessonIngest, s.lake]), (el) => {
    if (s.lake && !s.lake.available) html('p', { class: 'error' }, 'The Lake is down (an outage).', el);
    // Each table: the rows the sink wrote, per Kafka partition, as bars (with the number: not only a length).
    for (const t of tables) {
      html(
        'h3',
        {},
        `${t.database}.${t.table}: ${t.rows} rows${t.duplicate_rows > 0 ? `, ${t.duplicate_rows} duplicates` : ''}`,
        el,
      );
      const table = html(
        'table',
        { class: 'lake-rows', 'data-table': `${t.database}.${t.table}` },
        undefined,
        el,
      );
      const most = Math.max(1, ...t.partitions.map((p) => p.rows));
      for (const p of t.partitions.slice(0, MAX_LAKE_PARTITION_ROWS)) {
        const tr = html('tr', { 'data-tp': `${p.topic}-${p.partition}` }, undefined, table);
        html('th', {}, `${p.topic}-${p.partition}`, tr);
        html('td', { class: 'num' }, String(p.rows), tr);
        const bar = html('td', { class: 'lake-bar' }, undefined, tr);
        html('span', { style: `width:${(100 * p.rows) / most}%` }, '', bar);
        html('td', {}, `to offset ${p.end_offset - 1}`, tr);
      }
      if (t.partitions.length > MAX_LAKE_PARTITION_ROWS)
        html('p', {}, `and ${t.partitions.length - MAX_LAKE_PARTITION_ROWS} more partitions`, el);
    }
    for (const c of lessonIngest) {
      html('h3', {}, `${c.name} (bend-ingest-kafka)`, el);
      const table = html('table', { class: 'lake', 'data-ingest': c.name }, undefined, el);
      for (const [k, v] of Object.entries(c.stats)) {
        const tr = html('tr', {}, undefined, table);
        html('th', {}, k, tr);
        html('td', {}, String(v), tr);
      }
    }
    if (ingest.length === 0 && lessonIngest.length === 0 && tables.length === 0) {
      html('p', { class: 'empty' }, 'No ingest workload (bend-ingest-kafka) in this simulation.', el);
      return;
    }
    for (const w of ingest) {
      html('h3', {}, `${w.name} (${w.state})`, el);
      const table = html('table', {}, undefined, el);
      for (const [k, v] of Object.entries(w.stats)) {
        const tr = html('tr', {}, undefined, table);
        html('th', {}, k, tr);
        html('td', {}, typeof v === 'object' ? JSON.stringify(v) : String(v), tr);
      }
    }
  });
}

export function drawWorkloads(
  panel: Panel,
  s: Snapshot,
  act: (w: WorkloadView, action: 'start' | 'stop') => void,
): void {
  const lesson = s.lesson?.clients ?? [];
  // Keyed by what it shows (a workload's counters are not shown: they would redraw the panel at every read).
  panel.draw(JSON.stringify([s.workloads.map((w) => [w.name, w.kind, w.topic, w.state]), lesson]), (el) => {
    drawLessonClients(el, lesson);
    if (s.workloads.length === 0 && lesson.length === 0)
      html('p', { class: 'empty' }, 'No producers or consumers yet.', el);
    for (const w of s.workloads) {
      const row = html('div', { class: 'workload', 'data-workload': w.name }, undefined, el);
      html('span', {}, `${w.name} (${w.kind} on ${w.topic}): ${w.state}`, row);
      // A workload starts once and stops once (a stopped one is a finished process: add another).
      if (w.state !== 'created' && w.state !== 'running') continue;
      const running = w.state === 'running';
      const b = html(
        'button',
        { 'data-action': running ? 'stop' : 'start' },
        running ? 'stop' : 'start',
        row,
      );
      b.addEventListener('click', () => act(w, running ? 'stop' : 'start'));
    }
  });
}
