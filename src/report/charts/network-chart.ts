// Per-broker network in and out over time. "In" is what producers appended to the partitions a broker leads;
// "out" is what followers and consumers fetched from them (the broker model counts bytes per led replica).
import type { Recording } from '../recording.ts';
import { type ChartSpec, omitted, PALETTE } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

const MB = 1024 * 1024;

export function networkChart(rec: Recording): ChartSpec {
  const id = 'network';
  const title = 'Network in / out per broker';
  const total = (series: Record<string, (number | null)[]>) =>
    Object.values(series).reduce((sum, s) => sum + s.reduce<number>((a, v) => a + (v ?? 0), 0), 0);
  if (rec.times.length === 0 || total(rec.networkIn) + total(rec.networkOut) === 0)
    return omitted(id, title, 'No record traffic reached a broker in this run.');
  const x = rec.times.map((t) => axisSeconds(rec, t));
  const points = (values: (number | null)[]) =>
    values.map((v, i) => [x[i]!, v === null ? null : Math.round((v / MB) * 1000) / 1000]);
  const marks = markLine(markers(rec));
  // Without followers or consumers nothing is fetched: an all-zero "out" panel would only take room.
  const withOut = total(rec.networkOut) > 0;
  const series: Record<string, unknown>[] = [];
  rec.brokers.forEach((id, i) => {
    const color = PALETTE[i % PALETTE.length];
    const common = {
      type: 'line',
      name: `broker ${id}`,
      showSymbol: false,
      step: 'end',
      color,
      connectNulls: false,
    };
    series.push({
      ...common,
      id: `broker ${id} in`,
      xAxisIndex: 0,
      yAxisIndex: 0,
      data: points(rec.networkIn[id]!),
      ...(i === 0 && marks ? { markLine: marks } : {}),
    });
    if (withOut)
      series.push({
        ...common,
        id: `broker ${id} out`,
        xAxisIndex: 1,
        yAxisIndex: 1,
        data: points(rec.networkOut[id]!),
        ...(i === 0 && marks ? { markLine: marks } : {}),
      });
  });
  const grids = withOut ? [0, 1] : [0];
  return {
    id,
    title,
    note: `MiB/s per broker, 1 s samples: in = produced to the partitions it leads${withOut ? ', out = fetched from them by followers and consumers' : ' (nothing was fetched: no followers or consumers)'}; a gap is a broker that is down. Dashed lines: labelled steps and faults.`,
    height: withOut ? 460 : 310,
    option: {
      animation: false,
      tooltip: { trigger: 'axis', formatter: 'detail:MiB/s' },
      axisPointer: { link: [{ xAxisIndex: 'all' }] },
      legend: { top: 0, type: 'scroll' },
      grid: grids.map((g) => ({ left: 60, right: 24, top: 40 + g * 210, height: withOut ? 150 : 180 })),
      xAxis: grids.map((g) => timeAxis(rec, { gridIndex: g, ...(g < grids.length - 1 ? { name: '' } : {}) })),
      yAxis: grids.map((g) => ({
        type: 'value',
        gridIndex: g,
        name: g === 0 ? 'in (MiB/s)' : 'out (MiB/s)',
        nameTextStyle: { align: 'left' },
      })),
      dataZoom: dataZoom(grids),
      series,
    },
  };
}
