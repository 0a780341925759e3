// The auto-balancer's decisions on a timeline: one row per kind of decision (detect, violation, candidates, plan,
// execute, ...), a marker per decision, and its reason in the tooltip, so that a reader can see why the balancer
// did what it did. Reads `balancer.*` trace events by kind (models/balancer emits them).
import type { TraceEvent } from '../../../models/sim/index.ts';
import type { Recording } from '../recording.ts';
import { type ChartSpec, omitted, PALETTE } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

/** Rows in the order a detect cycle goes through them; other kinds follow, alphabetically. */
const ORDER = [
  'detect',
  'band',
  'violation',
  'skip-broker',
  'candidates',
  'trivial',
  'balance-failed',
  'goal-done',
  'plan',
  'execute',
  'executed',
  'execution-stopped',
];

export function balancerChart(rec: Recording): ChartSpec {
  const id = 'balancer';
  const title = 'Balancer decisions';
  const events = rec.events.filter((e) => e.kind.startsWith('balancer.'));
  if (events.length === 0)
    return omitted(id, title, 'The auto-balancer made no decision in this run (no balancer.* events).');
  const kinds = [...new Set(events.map((e) => e.kind.slice('balancer.'.length)))].sort((a, b) => {
    const ia = ORDER.indexOf(a);
    const ib = ORDER.indexOf(b);
    return (ia < 0 ? ORDER.length : ia) - (ib < 0 ? ORDER.length : ib) || (a < b ? -1 : a > b ? 1 : 0);
  });
  const marks = markLine(markers(rec), true);
  return {
    id,
    title,
    note: 'One row per kind of decision; hover a marker for its reason. Larger markers: more partitions moved.',
    height: Math.max(220, kinds.length * 30 + 110),
    option: {
      animation: false,
      tooltip: { trigger: 'item', formatter: '{b}' },
      grid: { left: 130, right: 24, top: 20, bottom: 60 },
      xAxis: timeAxis(rec),
      yAxis: { type: 'category', inverse: true, data: kinds },
      dataZoom: dataZoom([0]),
      series: kinds.map((kind, i) => ({
        type: 'scatter',
        name: kind,
        color: PALETTE[i % PALETTE.length],
        symbolSize: 9,
        data: events
          .filter((e) => e.kind === `balancer.${kind}`)
          .map((e) => ({
            name: `${axisSeconds(rec, e.t)}s ${kind}: ${describeBalancerEvent(e)}`,
            value: [axisSeconds(rec, e.t), i],
            symbolSize: sizeOf(e),
          })),
        ...(i === 0 && marks ? { markLine: marks } : {}),
      })),
    },
  };
}

function sizeOf(e: TraceEvent): number {
  const n = Array.isArray(e.moves) ? e.moves.length : typeof e.moves === 'number' ? e.moves : 0;
  return n > 0 ? Math.min(24, 9 + 2 * Math.sqrt(n)) : 9;
}

interface Move {
  topic?: string;
  partition?: number;
  srcBrokerId?: number;
  destBrokerId?: number;
  reason?: string;
}

const moveText = (m: Move) => `${m.topic}-${m.partition} ${m.srcBrokerId}→${m.destBrokerId}`;

/** One line saying what the decision was and why. */
export function describeBalancerEvent(e: TraceEvent): string {
  const kind = e.kind.slice('balancer.'.length);
  const list = (xs: unknown, n = 8) => {
    const a = Array.isArray(xs) ? xs : [];
    return a.length > n ? `${a.slice(0, n).join(', ')} … (+${a.length - n})` : a.join(', ');
  };
  switch (kind) {
    case 'detect':
      if (typeof e.skipped === 'string') return `skipped: ${e.skipped}`;
      return `goals ${list(e.goals)}${Array.isArray(e.brokers) ? `; ${e.brokers.length} brokers` : ''}`;
    case 'plan': {
      const batches = Array.isArray(e.batches) ? (e.batches as unknown[][]) : [];
      return `${e.moves} move${e.moves === 1 ? '' : 's'} in ${batches.length} batch${batches.length === 1 ? '' : 'es'}${batches.length ? `: ${list(batches.flat())}` : ''}`;
    }
    case 'execute': {
      const moves = Array.isArray(e.moves) ? (e.moves as Move[]) : [];
      const skipped = Array.isArray(e.skipped) ? (e.skipped as Move[]) : [];
      return `batch ${e.batch}: ${list(moves.map(moveText))}${skipped.length ? `; skipped ${list(skipped.map((m) => `${moveText(m)} (${m.reason})`))}` : ''}`;
    }
    case 'executed': {
      const errors = Array.isArray(e.errors) ? (e.errors as (Move & { error?: string })[]) : [];
      return errors.length
        ? `batch ${e.batch} errors: ${list(errors.map((m) => `${moveText(m)}: ${m.error}`))}`
        : `batch ${e.batch} accepted`;
    }
    case 'violation':
      return `${e.goal}: broker ${e.brokerId} at ${formatLoad(e.load)} needs ${e.need === 'less' ? 'less (above the band)' : 'more (below the band)'}`;
    case 'candidates':
      return `${e.goal}: ${e.topic}-${e.partition} from broker ${e.srcBrokerId} → ${e.chosen === null || e.chosen === undefined ? 'no destination' : `broker ${e.chosen}`}${typeof e.reason === 'string' ? ` (${e.reason})` : ''}`;
    default: {
      const fields = Object.entries(e)
        .filter(([k, v]) => !['t', 'kind', 'node'].includes(k) && v !== null && typeof v !== 'object')
        .map(([k, v]) => `${k}=${String(v)}`);
      return fields.join(', ') || kind;
    }
  }
}

function formatLoad(load: unknown): string {
  if (typeof load !== 'number') return String(load);
  return load >= 1024 * 1024
    ? `${(load / 1024 / 1024).toFixed(2)} MiB/s`
    : `${(load / 1024).toFixed(1)} KiB/s`;
}
