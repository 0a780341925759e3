// Consumer group generations and assignment changes: each group's generation as a step line (it rises with every
// completed rebalance), the rebalance triggers and member changes as markers with their reasons, and below, how
// many partitions each consumer has assigned. Reads `group.*` trace events by kind (models/group emits them).
import type { TraceEvent } from '../../../models/sim/index.ts';
import type { Recording } from '../recording.ts';
import { type ChartSpec, ERROR_COLOR, omitted, PALETTE } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

const MARKED = new Set([
  'group.prepare-rebalance',
  'group.member-added',
  'group.member-removed',
  'group.member-expired',
]);

export function groupChart(rec: Recording): ChartSpec {
  const id = 'groups';
  const title = 'Consumer group generations and assignment changes';
  const events = rec.events.filter((e) => e.kind.startsWith('group.') && typeof e.group === 'string');
  if (events.length === 0)
    return omitted(id, title, 'No consumer group ran in this run (no group.* events).');
  const groups = [...new Set(events.map((e) => e.group as string))].sort();
  const marks = markLine(markers(rec));
  const end = axisSeconds(rec, rec.end);
  const series: Record<string, unknown>[] = [];
  groups.forEach((g, i) => {
    const color = PALETTE[i % PALETTE.length];
    const mine = events.filter((e) => e.group === g);
    const points: [number, number][] = [];
    for (const e of mine) {
      if (typeof e.generation !== 'number') continue;
      const x = axisSeconds(rec, e.t);
      if (points.length === 0 || points[points.length - 1]![1] !== e.generation)
        points.push([x, e.generation]);
    }
    if (points.length > 0) points.push([end, points[points.length - 1]![1]]);
    series.push({
      type: 'line',
      name: `${g} generation`,
      color,
      step: 'end',
      showSymbol: false,
      xAxisIndex: 0,
      yAxisIndex: 0,
      data: points,
      ...(i === 0 && marks ? { markLine: marks } : {}),
    });
    const marked = mine.filter((e) => MARKED.has(e.kind));
    if (marked.length > 0) {
      series.push({
        type: 'scatter',
        name: `${g} rebalance triggers`,
        color: ERROR_COLOR,
        symbol: 'diamond',
        symbolSize: 9,
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: marked.map((e) => ({
          name: `${axisSeconds(rec, e.t)}s ${g}: ${describeGroupEvent(e)}`,
          value: [axisSeconds(rec, e.t), generationAt(points, axisSeconds(rec, e.t))],
        })),
      });
    }
  });
  const consumers = [...new Set(rec.assignments.map((a) => a.consumer))].sort();
  consumers.forEach((c, i) => {
    const changes = rec.assignments.filter((a) => a.consumer === c);
    const data = changes.map((a) => ({
      name: `${axisSeconds(rec, a.t)}s ${c}: ${a.partitions.length ? a.partitions.join(', ') : 'nothing'}`,
      value: [axisSeconds(rec, a.t), a.partitions.length],
    }));
    const last = changes[changes.length - 1];
    if (last) data.push({ name: '', value: [end, last.partitions.length] });
    series.push({
      type: 'line',
      name: c,
      color: PALETTE[(groups.length + i) % PALETTE.length],
      step: 'end',
      symbolSize: 6,
      xAxisIndex: 1,
      yAxisIndex: 1,
      data,
    });
  });
  return {
    id,
    title,
    note: 'Top: generation per group (a step per completed rebalance) and what triggered rebalances. Bottom: partitions assigned to each consumer; hover a point for the assignment.',
    height: 440,
    option: {
      animation: false,
      tooltip: { trigger: 'axis', formatter: 'detail' },
      axisPointer: { link: [{ xAxisIndex: 'all' }] },
      legend: { top: 0, type: 'scroll' },
      grid: [
        { left: 60, right: 24, top: 40, height: 140 },
        { left: 60, right: 24, top: 236, height: 130 },
      ],
      xAxis: [timeAxis(rec, { gridIndex: 0, name: '' }), timeAxis(rec, { gridIndex: 1 })],
      yAxis: [
        { type: 'value', gridIndex: 0, name: 'generation', minInterval: 1, nameTextStyle: { align: 'left' } },
        { type: 'value', gridIndex: 1, name: 'partitions', minInterval: 1, nameTextStyle: { align: 'left' } },
      ],
      dataZoom: dataZoom([0, 1]),
      series,
    },
  };
}

function generationAt(points: readonly [number, number][], x: number): number {
  let g = points[0]?.[1] ?? 0;
  for (const [px, pg] of points) if (px <= x) g = pg;
  return g;
}

function describeGroupEvent(e: TraceEvent): string {
  const what = e.kind.slice('group.'.length);
  if (typeof e.reason === 'string') return `${what}: ${e.reason}`;
  if (typeof e.memberId === 'string') return `${what} ${e.memberId}`;
  return what;
}
