// The shared time axis of a run report: seconds since the timeline's time 0 (the scenario's `at:` times), with the
// labelled steps and the faults drawn as vertical marks so that every chart shows when things happened.
import type { TraceEvent } from '../../../models/sim/index.ts';
import type { Recording } from '../recording.ts';

/** Virtual ms (absolute) -> seconds on the report's axis, to the millisecond. */
export function axisSeconds(rec: Pick<Recording, 'origin'>, t: number): number {
  return Math.round(t - rec.origin) / 1000;
}

export interface Marker {
  /** Seconds on the axis. */
  x: number;
  label: string;
}

const FAULT_LABELS: Record<string, (e: TraceEvent) => string | undefined> = {
  'node.crash': (e) => (e.node?.startsWith('broker-') ? `crash ${e.node.slice(7)}` : undefined),
  'net.partition': () => 'net partition',
  'net.isolate': (e) => `isolate ${String(e.target)}`,
  'net.heal': () => 'heal',
};

/**
 * Labelled steps (a waitUntil at the moment its condition held), then broker crashes and network faults that no
 * labelled step already marks, in time order.
 */
export function markers(rec: Recording): Marker[] {
  const out: Marker[] = rec.steps.map((s) => ({ x: axisSeconds(rec, s.t), label: s.label }));
  const stepTimes = new Set(rec.events.filter((e) => e.kind === 'scenario.step' && e.label).map((e) => e.t));
  for (const e of rec.events) {
    const label = FAULT_LABELS[e.kind]?.(e);
    if (label !== undefined && !stepTimes.has(e.t)) out.push({ x: axisSeconds(rec, e.t), label });
  }
  return out.sort((a, b) => a.x - b.x);
}

/**
 * An echarts markLine drawing the markers on a series (put it on one series per grid). Labels go above the plot,
 * or below it when the y axis runs downwards (`inverse`), where they would otherwise cover the x labels.
 */
export function markLine(marks: readonly Marker[], inverse = false): Record<string, unknown> | undefined {
  if (marks.length === 0) return undefined;
  return {
    silent: true,
    symbol: 'none',
    lineStyle: { color: '#888', type: 'dashed', width: 1 },
    label: { formatter: '{b}', position: inverse ? 'start' : 'end', color: '#555', fontSize: 10 },
    data: marks.map((m) => ({ name: m.label, xAxis: m.x })),
  };
}

/** The x range every time chart of a report shares. */
export function timeRange(rec: Recording): { min: number; max: number } {
  const first = rec.times[0] ?? rec.origin;
  return {
    min: Math.floor(axisSeconds(rec, Math.min(first, rec.origin))),
    max: Math.ceil(axisSeconds(rec, rec.end)),
  };
}

export function timeAxis(rec: Recording, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { min, max } = timeRange(rec);
  return {
    type: 'value',
    min,
    max,
    name: 'time (s)',
    nameLocation: 'middle',
    nameGap: 26,
    splitLine: { show: false },
    // The bounds are whole seconds around the data; their labels would crowd the round ticks next to them.
    axisLabel: { showMinLabel: false, showMaxLabel: false },
    ...extra,
  };
}

/** Zoom by wheel/drag and a slider, on the given x axes together. */
export function dataZoom(xAxisIndex: number[]): Record<string, unknown>[] {
  return [
    { type: 'inside', xAxisIndex, filterMode: 'none' },
    { type: 'slider', xAxisIndex, height: 18, bottom: 6, filterMode: 'none' },
  ];
}
