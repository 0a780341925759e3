// Producer throughput (records acknowledged per second) and latency (mean and highest per second, log scale),
// with the produce errors as red markers on the throughput line: where the moves, failovers and metadata
// refreshes show up from the client's side.
import type { Recording } from '../recording.ts';
import { type ChartSpec, ERROR_COLOR, omitted, PALETTE } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

export function producerChart(rec: Recording): ChartSpec {
  const id = 'producer';
  const title = 'Producer throughput and latency, with produce errors';
  const producers = rec.producers.filter((p) => p.t.length > 0);
  if (producers.length === 0) return omitted(id, title, 'No producer had a record acknowledged in this run.');
  const marks = markLine(markers(rec));
  const series: Record<string, unknown>[] = [];
  producers.forEach((p, i) => {
    const color = PALETTE[i % PALETTE.length];
    const x = p.t.map((t) => axisSeconds(rec, t));
    series.push({
      type: 'line',
      name: `${p.name} records/s`,
      color,
      showSymbol: false,
      step: 'end',
      xAxisIndex: 0,
      yAxisIndex: 0,
      data: p.recordsPerSec.map((v, j) => [x[j]!, Math.round(v * 10) / 10]),
      ...(i === 0 && marks ? { markLine: marks } : {}),
    });
    series.push({
      type: 'line',
      name: `${p.name} mean latency`,
      color,
      showSymbol: false,
      xAxisIndex: 1,
      yAxisIndex: 1,
      data: p.latencyAvg.map((v, j) => [x[j]!, v === null ? null : Math.max(0.01, round3(v))]),
      ...(i === 0 && marks ? { markLine: marks } : {}),
    });
    series.push({
      type: 'line',
      name: `${p.name} max latency`,
      color,
      showSymbol: false,
      lineStyle: { type: 'dotted' },
      xAxisIndex: 1,
      yAxisIndex: 1,
      data: p.latencyMax.map((v, j) => [x[j]!, v === null ? null : Math.max(0.01, round3(v))]),
    });
  });
  const errors = rec.produceErrors;
  if (errors.length > 0) {
    const rate = new Map<string, number>();
    for (const p of producers)
      for (let j = 0; j < p.t.length; j++) rate.set(`${p.name}@${p.t[j]}`, p.recordsPerSec[j]!);
    series.push({
      type: 'scatter',
      name: 'produce errors',
      color: ERROR_COLOR,
      xAxisIndex: 0,
      yAxisIndex: 0,
      symbol: 'triangle',
      z: 5,
      data: errors.map((e) => ({
        name: `${axisSeconds(rec, e.t)}s ${e.producer}: ${e.count} error${e.count === 1 ? '' : 's'} (${Object.entries(
          e.errors,
        )
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ')}) on partitions ${e.partitions.join(',')}`,
        value: [axisSeconds(rec, e.t), rate.get(`${e.producer}@${e.t}`) ?? 0],
        symbolSize: Math.min(22, 7 + 2 * Math.sqrt(e.count)),
      })),
    });
  }
  const errorCount = errors.reduce((a, e) => a + e.count, 0);
  return {
    id,
    title,
    note: `Records acknowledged per second (top) and record latency, send to acknowledgement (bottom, log scale: solid mean, dotted max). ${errorCount > 0 ? `Red triangles: ${errorCount} produce errors (retried or failed batches), sized by count.` : 'No produce errors.'}`,
    height: 480,
    option: {
      animation: false,
      tooltip: { trigger: 'axis', formatter: 'detail' },
      axisPointer: { link: [{ xAxisIndex: 'all' }] },
      legend: { top: 0, type: 'scroll' },
      grid: [
        { left: 70, right: 24, top: 40, height: 160 },
        { left: 70, right: 24, top: 262, height: 150 },
      ],
      xAxis: [timeAxis(rec, { gridIndex: 0, name: '' }), timeAxis(rec, { gridIndex: 1 })],
      yAxis: [
        { type: 'value', gridIndex: 0, name: 'records/s', nameTextStyle: { align: 'left' } },
        { type: 'log', gridIndex: 1, name: 'latency (ms)', nameTextStyle: { align: 'left' } },
      ],
      dataZoom: dataZoom([0, 1]),
      series,
    },
  };
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
