import { describe, expect, it } from 'vitest';
import { describeBalancerEvent } from '../../src/report/charts/balancer-chart.ts';
import { type ChartSpec, runReportCharts, runReportHtml } from '../../src/report/index.ts';
import type { ScenarioResult } from '../../src/scenario/index.ts';
import { emptyRecording, richRecording } from './synthetic.ts';

const byId = (charts: ChartSpec[]) => Object.fromEntries(charts.map((c) => [c.id, c]));
const series = (c: ChartSpec | undefined) =>
  c && 'option' in c ? (c.option.series as { name: string; type: string; data: unknown[] }[]) : [];

const result: ScenarioResult = {
  scenario: 'synthetic',
  seed: 1,
  passed: false,
  expectations: [
    { name: 'balanced', passed: true, expected: 'skew <= 1', actual: 0 },
    { name: 'no errors', passed: false, expected: 'count = 0', actual: { count: 3 } },
  ],
  metrics: { 'perf.lost': 0 },
  virtualMs: 20_000,
  wallMs: 5,
  events: 1000,
  traceHash: '0123456789abcdef',
  output: [],
  steps: [{ index: 0, label: 'balance', action: 'waitUntil', start: 9000, end: 10_000, status: 'ok' }],
};

describe('run report charts', () => {
  it('omits every chart of a run without data, each saying why', () => {
    const charts = runReportCharts(emptyRecording());
    expect(charts.map((c) => c.id)).toEqual([
      'network',
      'placement',
      'producer',
      'lag',
      'groups',
      'raft',
      'balancer',
    ]);
    for (const c of charts) {
      expect('omitted' in c, c.id).toBe(true);
      if ('omitted' in c) expect(c.omitted.length).toBeGreaterThan(10);
    }
  });

  it('draws every chart when the run has every kind of data', () => {
    const charts = byId(runReportCharts(richRecording()));
    for (const c of Object.values(charts)) {
      expect('option' in c, c.id).toBe(true);
      for (const s of series(c)) expect(s.data.length, `${c.id}/${s.name}`).toBeGreaterThan(0);
    }
    // Placement: partition 1 has no leader between the balancer's move and its new owner opening it.
    const gap = series(charts.placement).find((s) => s.name === 'no leader')!;
    expect(gap.data).toEqual([expect.objectContaining({ value: [1, 10, 11.5] })]);
    // Producer errors sit on the throughput line of their bucket, with what they were.
    const marks = series(charts.producer).find((s) => s.name === 'produce errors')!;
    expect(marks.data).toEqual([
      expect.objectContaining({
        value: [10, 3000],
        name: expect.stringContaining('NOT_LEADER_OR_FOLLOWER ×3'),
      }),
    ]);
    // Balancer rows follow a detect cycle's order.
    const option = (charts.balancer as unknown as { option: { yAxis: { data: string[] } } }).option;
    expect(option.yAxis.data).toEqual(['detect', 'violation', 'plan', 'execute', 'executed']);
    // Raft: one bar per role interval.
    expect(series(charts.raft).map((s) => [s.name, s.data.length])).toEqual([
      ['leader', 2],
      ['follower', 1],
      ['candidate', 2],
    ]);
  });

  it('says why the balancer did what it did', () => {
    const rec = richRecording();
    const text = (kind: string) => describeBalancerEvent(rec.events.find((e) => e.kind === kind)!);
    expect(text('balancer.violation')).toBe(
      'NetworkInUsageDistributionGoal: broker 1 at 1.91 MiB/s needs less (above the band)',
    );
    expect(text('balancer.plan')).toBe('1 move in 1 batch: hot-1:1->2');
    expect(text('balancer.execute')).toBe('batch 0: hot-1 1→2');
    expect(
      describeBalancerEvent({ t: 0, kind: 'balancer.detect', skipped: 'not the active controller' }),
    ).toBe('skipped: not the active controller');
  });
});

describe('the report page', () => {
  it('is one file with echarts inlined, the charts as JSON, omitted charts as notes and the expectations', () => {
    const rec = richRecording();
    rec.steps[0]!.label = '</script><script>alert(1)</script>';
    const html = runReportHtml({
      result: { ...result, steps: [] },
      recording: rec,
      description: 'A <b>test</b>\nmore',
    });
    expect(html).not.toMatch(/<script\s+src=|<link\s/); // nothing to fetch
    expect(html).toContain('echarts');
    expect(html.match(/<script>alert\(1\)<\/script>/)).toBeNull();
    const json = /<script type="application\/json" id="kafkasim-charts">([\s\S]*?)<\/script>/.exec(html)![1]!;
    const charts = JSON.parse(json) as { id: string }[];
    expect(charts.map((c) => c.id)).toEqual([
      'network',
      'placement',
      'producer',
      'lag',
      'groups',
      'raft',
      'balancer',
    ]);
    expect(JSON.stringify(charts)).toContain('</script><script>alert(1)</script>');
    expect(html).toContain('A &lt;b&gt;test&lt;/b&gt;');
    expect(html).toMatch(/<td class="fail">FAIL<\/td><td>no errors<\/td>/);

    const bare = runReportHtml({ result, recording: emptyRecording() });
    expect(bare.match(/data-omitted="true"/g)).toHaveLength(7);
    expect(bare).toContain('Not shown: No consumer ran in this run.');
  });
});
