// Partition placement over time as a step chart of bars: one row per partition, coloured by the broker that led
// it, grey while it had no leader (a move on shared storage, a failover). Internal topics (__consumer_offsets)
// are left out: they are not what the user placed.
import type { PlacementChange, Recording } from '../recording.ts';
import { type ChartSpec, NO_LEADER_COLOR, omitted, PALETTE } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

interface Interval {
  row: number;
  start: number;
  end: number;
  change: PlacementChange;
}

export function placementChart(rec: Recording): ChartSpec {
  const id = 'placement';
  const title = 'Partition placement: which broker leads each partition';
  const changes = rec.placement.filter((p) => !p.topic.startsWith('__'));
  if (changes.length === 0) return omitted(id, title, 'No topic existed in this run.');
  const rows = [...new Set(changes.map((c) => `${c.topic}-${c.partition}`))].sort(byTopicPartition);
  const rowOf = new Map(rows.map((r, i) => [r, i]));
  const intervals: Interval[] = [];
  const open = new Map<string, Interval>();
  for (const c of changes) {
    const key = `${c.topic}-${c.partition}`;
    const x = axisSeconds(rec, c.t);
    const cur = open.get(key);
    if (cur) cur.end = x;
    const next = { row: rowOf.get(key)!, start: x, end: axisSeconds(rec, rec.end), change: c };
    intervals.push(next);
    open.set(key, next);
  }
  const multiTopic = new Set(changes.map((c) => c.topic)).size > 1;
  const label = (row: string) => (multiTopic ? row : `p${row.slice(row.lastIndexOf('-') + 1)}`);
  const describe = (iv: Interval) => {
    const c = iv.change;
    const who = c.leader >= 0 ? `led by broker ${c.leader}` : 'no leader';
    const moving = c.adding.length > 0 ? `, moving: adding ${c.adding.join(',')}` : '';
    return `${c.topic}-${c.partition} ${who} (replicas ${c.replicas.join(',') || '-'}, isr ${c.isr.join(',') || '-'}${moving}) from ${iv.start}s to ${iv.end}s`;
  };
  const byLeader = new Map<number, Interval[]>();
  for (const iv of intervals) {
    // Several changes at one instant leave empty intervals: nothing to draw.
    if (iv.end <= iv.start) continue;
    const leader = iv.change.leader;
    byLeader.set(leader, [...(byLeader.get(leader) ?? []), iv]);
  }
  const leaders = [...byLeader.keys()].sort((a, b) => a - b);
  const marks = markLine(markers(rec), true);
  const series = leaders.map((leader, i) => {
    const brokerIndex = rec.brokers.indexOf(leader);
    return {
      type: 'custom',
      name: leader >= 0 ? `broker ${leader}` : 'no leader',
      renderItem: 'gantt',
      color: leader >= 0 ? PALETTE[(brokerIndex >= 0 ? brokerIndex : i) % PALETTE.length] : NO_LEADER_COLOR,
      encode: { x: [1, 2], y: 0 },
      data: byLeader.get(leader)!.map((iv) => ({ name: describe(iv), value: [iv.row, iv.start, iv.end] })),
      ...(i === 0 && marks ? { markLine: marks } : {}),
    };
  });
  const height = Math.min(1400, Math.max(240, rows.length * 16 + 110));
  return {
    id,
    title,
    note: 'One row per partition, coloured by its leader; grey: no leader (between the old and the new owner).',
    height,
    option: {
      animation: false,
      tooltip: { trigger: 'item', formatter: '{b}' },
      legend: { top: 0, type: 'scroll' },
      grid: { left: multiTopic ? 150 : 50, right: 24, top: 36, bottom: 60 },
      xAxis: timeAxis(rec),
      yAxis: {
        type: 'category',
        inverse: true,
        data: rows.map(label),
        axisLabel: { fontSize: rows.length > 40 ? 8 : 11, interval: 0 },
        splitLine: { show: false },
      },
      dataZoom: dataZoom([0]),
      series,
    },
  };
}

/** `orders-2` before `orders-10`. */
function byTopicPartition(a: string, b: string): number {
  const ia = a.lastIndexOf('-');
  const ib = b.lastIndexOf('-');
  const ta = a.slice(0, ia);
  const tb = b.slice(0, ib);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return Number(a.slice(ia + 1)) - Number(b.slice(ib + 1));
}
