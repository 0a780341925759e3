// Consumer lag per partition: the partition's high watermark minus the consumer's position (summed over the
// consumers that have it assigned), sampled every second.
import type { Recording } from '../recording.ts';
import { type ChartSpec, omitted } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

export function lagChart(rec: Recording): ChartSpec {
  const id = 'lag';
  const title = 'Consumer lag per partition';
  if (rec.consumers.length === 0) return omitted(id, title, 'No consumer ran in this run.');
  const keys = Object.keys(rec.lag).sort((a, b) => {
    const ia = a.lastIndexOf('-');
    const ib = b.lastIndexOf('-');
    return a.slice(0, ia) < b.slice(0, ib)
      ? -1
      : a.slice(0, ia) > b.slice(0, ib)
        ? 1
        : Number(a.slice(ia + 1)) - Number(b.slice(ib + 1));
  });
  if (keys.length === 0) return omitted(id, title, 'The consumers never had a position on a partition.');
  const x = rec.times.map((t) => axisSeconds(rec, t));
  const marks = markLine(markers(rec));
  return {
    id,
    title,
    note: `Records behind the high watermark, per partition (${rec.consumers.join(', ')}). A line starts when a consumer has a position on the partition.`,
    height: 340,
    option: {
      animation: false,
      tooltip: { trigger: 'axis', formatter: 'detail:records' },
      legend: { top: 0, type: 'scroll' },
      grid: { left: 70, right: 24, top: 40, bottom: 60 },
      xAxis: timeAxis(rec),
      yAxis: { type: 'value', name: 'lag (records)', nameTextStyle: { align: 'left' } },
      dataZoom: dataZoom([0]),
      series: keys.map((k, i) => ({
        type: 'line',
        name: k,
        showSymbol: false,
        data: rec.lag[k]!.map((v, j) => [x[j]!, v]),
        ...(i === 0 && marks ? { markLine: marks } : {}),
      })),
    },
  };
}
