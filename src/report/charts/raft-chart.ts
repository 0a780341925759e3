// The KRaft quorum's roles over time: one row per controller node, a bar per role (leader, follower, candidate,
// ...), as each node saw it, from models/raft's `raft.role` events (see raftTimeline in whatif-metrics.ts).
import type { Recording } from '../recording.ts';
import { raftTimeline } from '../whatif-metrics.ts';
import { type ChartSpec, omitted } from './chart-spec.ts';
import { axisSeconds, dataZoom, markers, markLine, timeAxis } from './time-axis.ts';

const ROLE_COLORS: Record<string, string> = {
  leader: '#3ba272',
  follower: '#5470c6',
  candidate: '#fc8452',
  prospective: '#fac858',
  unattached: '#a0a7b4',
  resigned: '#9a60b4',
  voted: '#73c0de',
};

export function raftChart(rec: Recording): ChartSpec {
  const id = 'raft';
  const title = 'KRaft quorum roles';
  const timeline = raftTimeline(rec.events, rec.end);
  if (!timeline)
    return omitted(
      id,
      title,
      'No Raft role events in this run (raft.role events: a KRaft quorum, cluster controllers > 1).',
    );
  const nodes = [...new Set(timeline.intervals.map((i) => i.node))].sort();
  const roles = [...new Set(timeline.intervals.map((i) => i.role))].sort(
    (a, b) => Object.keys(ROLE_COLORS).indexOf(a) - Object.keys(ROLE_COLORS).indexOf(b),
  );
  const marks = markLine(markers(rec), true);
  return {
    id,
    title,
    note: `Each controller's Raft role; ${timeline.leaderChanges} leader change${timeline.leaderChanges === 1 ? '' : 's'} after the first election, ${Math.round(timeline.unavailableMs)} ms without a leader.`,
    height: Math.max(200, nodes.length * 36 + 110),
    option: {
      animation: false,
      tooltip: { trigger: 'item', formatter: '{b}' },
      legend: { top: 0 },
      grid: { left: 120, right: 24, top: 36, bottom: 60 },
      xAxis: timeAxis(rec),
      yAxis: { type: 'category', inverse: true, data: nodes },
      dataZoom: dataZoom([0]),
      series: roles.map((role, i) => ({
        type: 'custom',
        name: role,
        renderItem: 'gantt',
        color: ROLE_COLORS[role] ?? '#888',
        encode: { x: [1, 2], y: 0 },
        data: timeline.intervals
          .filter((iv) => iv.role === role)
          .map((iv) => {
            const start = axisSeconds(rec, iv.start);
            const end = axisSeconds(rec, iv.end);
            return {
              name: `${iv.node}: ${role}${iv.epoch !== null ? ` (epoch ${iv.epoch})` : ''} from ${start}s to ${end}s`,
              value: [nodes.indexOf(iv.node), start, end],
            };
          }),
        ...(i === 0 && marks ? { markLine: marks } : {}),
      })),
    },
  };
}
