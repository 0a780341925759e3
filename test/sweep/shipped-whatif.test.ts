// The shipped what-if templates answer their question: the sweep command in each description is valid for its
// scenario, and the metric it sweeps moves with the swept setting. Cells run in-process (runCell), one seed each.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consumerGroupDefaults } from '../../models/group/consumer-group-config.ts';
import { loadScenarioFile, SCENARIOS_DIR } from '../../src/scenario/index.ts';
import { cellsOf, parseGrid, runCell, setFlagsOf } from '../../src/sweep/index.ts';

const REFRESH = `${SCENARIOS_DIR}whatif-metadata-refresh.yaml`;
const GROUP_PROTOCOL = `${SCENARIOS_DIR}whatif-group-protocol.yaml`;

/** The `--grid` values of the `kafkasim sweep` line in a scenario's description (quotes as a shell reads them). */
function gridOfDescription(file: string): string[] {
  const { description } = loadScenarioFile(file).spec;
  const line = (description ?? '').split('\n').find((l) => l.trim().startsWith('kafkasim sweep '));
  expect(line, `a kafkasim sweep line in ${file}`).toBeDefined();
  const flags: string[] = [];
  for (const m of line!.matchAll(/--grid (?:"([^"]*)"|'([^']*)'|(\S+))/g)) flags.push(m[1] ?? m[2] ?? m[3]!);
  return flags;
}

/** Every cell of a grid over a shipped what-if, run in-process with seed 1: each with its `--set` flags as a label. */
function runGrid(path: string, grid: string[], metrics: string[]) {
  return cellsOf(parseGrid(grid)).map((cell) => {
    const label = setFlagsOf(cell).join(' ');
    const run = runCell({ path, set: setFlagsOf(cell), seed: 1, metrics });
    expect(run.error, label).toBeUndefined();
    return { cell, label, run, m: run.metrics };
  });
}

describe('whatif-metadata-refresh', () => {
  it('its sweep command names the ingest service’s refresh setting and the workers’ client flavour', () => {
    const axes = parseGrid(gridOfDescription(REFRESH));
    expect(axes.map((a) => a.path)).toEqual([
      'clients.ingest.0.config.topicMetadataRefreshIntervalMs',
      'clients.ingest.0.flavour',
    ]);
    expect(axes[0]!.values).toEqual(['1000', '5000', '30000', '300000']);
    expect(axes[1]!.values).toEqual(['librdkafka', 'java']);
    // The scenario file itself is the sweep's 5000 ms, librdkafka cell.
    const raw = readFileSync(REFRESH, 'utf8');
    expect(raw).toContain('topicMetadataRefreshIntervalMs: 5000');
    expect(raw).toContain('flavour: librdkafka');
  });

  it('the workers cover the new partitions about one refresh interval after the alter, with either client', () => {
    const covered = new Map<string, number>();
    const cells = runGrid(
      REFRESH,
      [
        'clients.ingest.0.config.topicMetadataRefreshIntervalMs=1000,30000,300000',
        'clients.ingest.0.flavour=librdkafka,java',
      ],
      ['alterToCoveredMs', 'appliedToCoveredMs', 'alterToBalancedMs', 'alterToAssignedMs'],
    );
    for (const { cell, label, run, m } of cells) {
      const refresh = Number(cell.params['clients.ingest.0.config.topicMetadataRefreshIntervalMs']);
      // Every other expectation holds in every cell: only the guide's 30 s bar depends on the setting.
      expect(run.passed, label).toBe(m.alterToCoveredMs! <= 30_000);
      // A worker sees the count on its next refresh (at most one interval), then the group rebalances.
      expect(m.alterToCoveredMs!, label).toBeLessThanOrEqual(refresh + 2000);
      expect(m.alterToBalancedMs!, label).toBeGreaterThanOrEqual(m.alterToCoveredMs!);
      // The recorder's own alter-to-assigned (from the controller handling the alter to the workers' consumers)
      // agrees with the scenario's, timed from the same moment (fromPoint: applied), within its 10 ms poll.
      expect(Math.abs(m.alterToAssignedMs! - m.appliedToCoveredMs!), label).toBeLessThanOrEqual(20);
      // Typing the command comes first: the tool starts up (kafkasim.tool.startup.ms) before its request.
      expect(m.alterToCoveredMs!, label).toBeGreaterThan(m.appliedToCoveredMs! + 400);
      covered.set(label, m.alterToCoveredMs!);
    }
    const [fastRd, fastJava, slowRd, slowJava, defaultRd, defaultJava] = [...covered.values()];
    expect(slowRd!).toBeGreaterThan(fastRd! + 10_000);
    expect(slowJava!).toBeGreaterThan(fastJava! + 10_000);
    // The flavour changes the rebalance, not the detection: the two stay within one refresh of each other.
    expect(Math.abs(fastJava! - fastRd!)).toBeLessThanOrEqual(1000 + 2000);
    // The service's default refresh (5 min) misses the guide's bar by minutes.
    expect(defaultRd!).toBeGreaterThan(60_000);
    expect(defaultJava!).toBeGreaterThan(60_000);
  });
});

describe('whatif-group-protocol (issue 22: the rebalance what-if answered both ways in one sweep)', () => {
  const PROTOCOL = 'clients.groups.0.config["group.protocol"]';
  const MEMBERS = 'clients.groups.0.members';
  const PARTITIONS = 'timeline.1.alterTopic.partitions';

  it('its sweep command is protocol x members x partitions, and the file is its classic, 4-member, 8-partition cell', () => {
    const axes = parseGrid(gridOfDescription(GROUP_PROTOCOL));
    expect(axes.map((a) => [a.path, a.values])).toEqual([
      [PROTOCOL, ['classic', 'consumer']],
      [MEMBERS, ['2', '4', '8']],
      [PARTITIONS, ['8', '16', '32']],
    ]);
    const { spec } = loadScenarioFile(GROUP_PROTOCOL);
    const group = spec.clients!.groups![0]!;
    expect([group.config?.['group.protocol'], group.members]).toEqual(['classic', 4]);
    expect(spec.timeline![1]).toMatchObject({ label: 'alter', alterTopic: { partitions: 8 } });
  });

  it('every cell covers the new partitions; KIP-848 within a heartbeat interval, classic only on the refresh', () => {
    const interval = consumerGroupDefaults['group.consumer.heartbeat.interval.ms'];
    const byProtocol: Record<string, Map<string, number>> = { classic: new Map(), consumer: new Map() };
    const cells = runGrid(
      GROUP_PROTOCOL,
      [`${PROTOCOL}=classic,consumer`, `${MEMBERS}=2,8`, `${PARTITIONS}=8,32`],
      ['alterToAssignedMs', 'appliedToCoveredMs', 'appliedToEvenMs', 'groupRebalances'],
    );
    for (const { cell, label, run, m } of cells) {
      expect(run.passed, label).toBe(true);
      // Covered comes first, even (members within one partition of each other) no earlier.
      expect(m.appliedToEvenMs!, label).toBeGreaterThanOrEqual(m.appliedToCoveredMs!);
      // The recorder's alter -> assigned counts an owner in any member state, the scenario's covered only Stable
      // members (a classic member owns its partitions a few ms before its SyncGroup round ends): never later.
      expect(m.alterToAssignedMs!, label).toBeGreaterThan(0);
      expect(m.alterToAssignedMs!, label).toBeLessThanOrEqual(m.appliedToCoveredMs! + 20);
      const key = `${cell.params[MEMBERS]} x ${cell.params[PARTITIONS]}`;
      byProtocol[cell.params[PROTOCOL]!]!.set(key, m.appliedToCoveredMs!);
      if (cell.params[PROTOCOL] === 'consumer') {
        // The coordinator sees the new partitions; the next heartbeats (one interval) hand them out, no rejoin.
        expect(m.appliedToCoveredMs!, label).toBeLessThanOrEqual(interval + 1000);
        expect(m.groupRebalances, label).toBe(0);
      } else {
        // Nobody tells a classic group: its leader's metadata.max.age.ms refresh, 300 s after it started.
        expect(m.appliedToCoveredMs!, label).toBeGreaterThan(60_000);
        expect(m.groupRebalances!, label).toBeGreaterThan(0);
      }
    }
    // The comparison the sweep is for, cell by cell: the consumer protocol assigns the new partitions sooner.
    expect([...byProtocol.consumer!.keys()]).toEqual([...byProtocol.classic!.keys()]);
    for (const [key, consumerMs] of byProtocol.consumer!)
      expect(consumerMs, key).toBeLessThan(byProtocol.classic!.get(key)!);
  });
});
