// A malformed scenario gets precise errors: file:line:column (or the --set flag), the path inside the document,
// and what was expected. Valid ones load, and --set overrides are applied and validated like the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  formatIssue,
  loadScenarioFile,
  loadScenarioObject,
  loadScenarioText,
  ScenarioError,
  type ScenarioIssue,
} from '../../src/scenario/index.ts';

const BASE = `name: demo
cluster:
  brokers: 2
  firstBrokerId: 1
topics:
  - name: orders
    partitions: 4
clients:
  perfProducers:
    - name: perf
      topic: orders
      numRecords: 1000
      throughput: 100
      recordSize: 100
timeline:
  - start: perf
  - run: 5s
expectations:
  - name: nothing lost
    delivery: { producer: perf, lost: 0 }
`;

function issuesOf(text: string, set?: string[]): ScenarioIssue[] {
  try {
    loadScenarioText(text, 'demo.yaml', set ? { set } : {});
  } catch (e) {
    if (e instanceof ScenarioError) return [...e.issues];
    throw e;
  }
  throw new Error('expected the scenario to be invalid');
}

function only(text: string, set?: string[]): ScenarioIssue {
  const issues = issuesOf(text, set);
  expect(issues, issues.map(formatIssue).join('\n')).toHaveLength(1);
  return issues[0]!;
}

describe('valid scenarios load', () => {
  it('the base scenario is valid and keeps its values', () => {
    const loaded = loadScenarioText(BASE, 'demo.yaml');
    expect(loaded.spec.topics?.[0]?.partitions).toBe(4);
    expect(loaded.brokerIds).toEqual([1, 2]);
  });

  it('--set overrides values as YAML scalars, including keys with dots', () => {
    const loaded = loadScenarioText(BASE, 'demo.yaml', {
      set: [
        'topics.0.partitions=16',
        'seed=7',
        'topics.0.configs.min.insync.replicas=1',
        'cluster.storage=shared',
      ],
    });
    expect(loaded.spec.topics?.[0]?.partitions).toBe(16);
    expect(loaded.spec.seed).toBe(7);
    expect(loaded.spec.topics?.[0]?.configs).toEqual({ 'min.insync.replicas': 1 });
    expect(loaded.spec.cluster?.storage).toBe('shared');
  });
});

describe('malformed scenarios give precise errors', () => {
  it('a YAML syntax error: line and column of the problem', () => {
    const text = BASE.replace('  - run: 5s', '   - run: 5s');
    const issue = only(text);
    expect(issue.source).toBe('demo.yaml');
    expect(issue.line).toBe(17);
    expect(issue.column).toBe(4);
    expect(issue.message).toMatch(/^invalid YAML: /);
    expect(issue.excerpt).toBe('   - run: 5s');
    // What is wrong and where, nothing else: no key path (the text does not parse, so no path is known).
    expect(issue.path).toBe('');
    expect(formatIssue(issue)).toBe(`demo.yaml:17:4: ${issue.message}`);
  });

  it('a YAML syntax error inside a mapping names no key path', () => {
    // The unclosed flow sequence is inside cluster.brokers; the error is where the parser stopped, not a path.
    const issue = only(BASE.replace('  brokers: 2', '  brokers: [1, 2'));
    expect(issue).toMatchObject({ source: 'demo.yaml', line: 4, column: 3, path: '' });
    expect(formatIssue(issue)).toBe(`demo.yaml:4:3: ${issue.message}`);
    expect(formatIssue(issue)).toMatch(/^demo\.yaml:4:3: invalid YAML: Flow sequence .* end with a \]$/);
  });

  it('a duplicate key is a YAML error', () => {
    const issue = only(BASE.replace('    partitions: 4', '    partitions: 4\n    partitions: 5'));
    expect(issue.line).toBe(8);
    expect(issue.message).toMatch(/invalid YAML: .*[Uu]nique/);
  });

  it('an unknown key: at the key, with a suggestion and the keys expected there', () => {
    const issue = only(BASE.replace('    partitions: 4', '    partitons: 4'));
    expect(issue).toMatchObject({ source: 'demo.yaml', line: 7, column: 5, path: 'topics.0.partitons' });
    expect(issue.message).toBe(
      "unknown key 'partitons' (did you mean 'partitions'?); expected one of: name, partitions, replicationFactor, configs, assignments",
    );
    expect(formatIssue(issue)).toBe(`demo.yaml:7:5: topics.0.partitons: ${issue.message}`);
  });

  it('a wrong type: at the value, saying what was expected and found', () => {
    const issue = only(BASE.replace('    partitions: 4', '    partitions: four'));
    expect(issue).toMatchObject({ line: 7, column: 17, path: 'topics.0.partitions' });
    expect(issue.message).toBe('expected an integer; found string "four"');
  });

  it('a bad duration', () => {
    const issue = only(BASE.replace('  - run: 5s', '  - run: 5 seconds'));
    expect(issue).toMatchObject({ line: 17, column: 10, path: 'timeline.1.run' });
    expect(issue.message).toBe(`expected a duration such as '250ms', '5s' or '2m'; found string "5 seconds"`);
  });

  it('an unknown broker in a step', () => {
    const issue = only(BASE.replace('  - run: 5s', '  - crashBroker: 3'));
    expect(issue).toMatchObject({ line: 17, column: 18, path: 'timeline.1.crashBroker' });
    expect(issue.message).toBe("unknown broker 3; the cluster's brokers are 1, 2");
  });

  it('a step with no action, or two', () => {
    expect(only(BASE.replace('  - run: 5s', '  - label: x')).message).toMatch(
      /^expected exactly one of these keys: createTopic, alterTopic, .*; found none$/,
    );
    expect(only(BASE.replace('  - run: 5s', '  - run: 5s\n    heal: true')).message).toMatch(
      /^expected exactly one of these keys: .*; found heal and run$/,
    );
  });

  it('a value union is reported by the shape that was meant', () => {
    const issue = only(BASE.replace('  - run: 5s', '  - crashBroker: { leaderOf: { topic: orders } }'));
    expect(issue).toMatchObject({ path: 'timeline.1.crashBroker.leaderOf', line: 17, column: 30 });
    expect(issue.message).toBe("missing required key 'partition'");
    const cmp = only(BASE.replace('lost: 0', 'lost: { gt: none }'));
    expect(cmp).toMatchObject({ path: 'expectations.0.delivery.lost.gt' });
    expect(cmp.message).toBe('expected a number; found string "none"');
  });

  it('an unknown client, topic or label, with a suggestion', () => {
    const misspelt = issuesOf(BASE.replace('  - start: perf', '  - start: perff'));
    expect(misspelt.map((i) => [i.path, i.message])).toEqual([
      [
        'clients.perfProducers.0.name',
        "client 'perf' is never started: add autoStart: true or a step 'start: perf'",
      ],
      ['timeline.0.start', "unknown client 'perff' (did you mean 'perf'?); declared: perf"],
    ]);
    expect(only(BASE.replace('      topic: orders', '      topic: order')).message).toMatch(
      /^unknown topic 'order' \(did you mean 'orders'\?\)/,
    );
    const label = only(`${BASE}  - name: t\n    timing: { to: done, max: 5s }\n`);
    expect(label).toMatchObject({ path: 'expectations.1.timing.to', line: 22 });
    expect(label.message).toBe("no step has the label 'done'");
  });

  it('a topic config Kafka rejects: at the key, in Kafka’s words', () => {
    const issue = only(
      BASE.replace('    partitions: 4', '    partitions: 4\n    configs:\n      retention.ms: soon'),
    );
    expect(issue).toMatchObject({ path: 'topics.0.configs["retention.ms"]', line: 9, column: 21 });
    expect(issue.message).toBe(
      'Invalid value soon for configuration retention.ms: Not a number of type LONG',
    );
  });

  it('several problems are all reported, in file order', () => {
    const issues = issuesOf(
      BASE.replace('    partitions: 4', '    partitions: -1').replace('  - run: 5s', '  - run: 5'),
    );
    expect(issues.map((i) => [i.line, i.path])).toEqual([
      [7, 'topics.0.partitions'],
      [17, 'timeline.1.run'],
    ]);
    expect(issues[0]!.message).toBe('expected an integer >= 1; found integer -1');
  });

  it('a bad --set value is reported at the flag', () => {
    const issue = only(BASE, ['topics.0.partitions=sixteen']);
    expect(issue).toEqual({
      source: '--set topics.0.partitions=sixteen',
      path: 'topics.0.partitions',
      message: 'expected an integer; found string "sixteen"',
    });
  });

  it('a bad --set path is reported at the flag', () => {
    expect(only(BASE, ['topics.2.partitions=16'])).toEqual({
      source: '--set topics.2.partitions=16',
      path: 'topics.2.partitions',
      message: 'topics has 1 item: index 2 is out of range (0..0)',
    });
    expect(only(BASE, ['topics.0.partitoins=16'])).toMatchObject({
      source: '--set topics.0.partitoins=16',
      path: 'topics.0.partitoins',
    });
    expect(only(BASE, ['name']).message).toBe('expected path=value, e.g. topics.0.partitions=16');
    expect(only(BASE, ['timeline.1.run.x=1']).message).toBe(
      "timeline.1.run is a string, not a mapping: cannot set 'x' in it",
    );
  });

  it('a missing file', () => {
    expect(() => loadScenarioFile('/nonexistent/x.yaml')).toThrow(ScenarioError);
    try {
      loadScenarioFile('/nonexistent/x.yaml');
    } catch (e) {
      expect(formatIssue((e as ScenarioError).issues[0]!)).toBe('/nonexistent/x.yaml: no such file');
    }
  });
});

describe('reassignment JSON', () => {
  const withReassign = (json: string) => BASE.replace('  - run: 5s', `  - reassign:\n      json: ${json}`);

  it('inline JSON is checked like the tool checks it, at the YAML node', () => {
    const issue = only(withReassign('{ version: 1, partitions: [{ topic: orders, partition: 0 }] }'));
    // The missing field has no node: the error points at the partition's mapping.
    expect(issue).toMatchObject({
      path: 'timeline.1.reassign.json.partitions.0.replicas',
      line: 18,
      column: 40,
    });
    expect(issue.message).toBe('partitions[0] is missing required field "replicas"');
  });

  it('an unknown broker in the replicas', () => {
    const issue = only(
      withReassign('{ version: 1, partitions: [{ topic: orders, partition: 0, replicas: [2, 5] }] }'),
    );
    expect(issue.path).toBe('timeline.1.reassign.json.partitions.0.replicas.1');
    expect(issue.message).toBe(
      "unknown broker 5 in the replicas of orders-0; the cluster's brokers are 1, 2",
    );
  });

  it('a file next to the scenario, with errors located in the JSON file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkasim-scenario-'));
    writeFileSync(
      join(dir, 'move.json'),
      '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2]}]}',
    );
    writeFileSync(
      join(dir, 'bad.json'),
      '{"version":1,\n "partitions":[{"topic":"orders","partition":"0","replicas":[2]}]}',
    );
    writeFileSync(join(dir, 'ok.yaml'), BASE.replace('  - run: 5s', '  - reassign: { file: move.json }'));
    writeFileSync(join(dir, 'bad.yaml'), BASE.replace('  - run: 5s', '  - reassign: { file: bad.json }'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const loaded = loadScenarioFile(join(dir, 'ok.yaml'));
    expect(loaded.reassignments.get(1)?.partitions).toEqual([
      { topic: 'orders', partition: 0, replicas: [2] },
    ]);
    try {
      loadScenarioFile(join(dir, 'bad.yaml'));
      throw new Error('expected an error');
    } catch (e) {
      const issue = (e as ScenarioError).issues[0]!;
      expect(issue).toMatchObject({
        source: join(dir, 'bad.json'),
        line: 2,
        path: 'partitions[0].partition',
      });
      expect(issue.message).toMatch(/^partitions\[0\]\.partition must be an integer, found string/);
    }
  });
});

describe('scenario objects (library API)', () => {
  it('are validated like files, located by path', () => {
    try {
      loadScenarioObject({ name: 'x', timeline: [{ run: 5 }] });
      throw new Error('expected an error');
    } catch (e) {
      expect((e as ScenarioError).issues).toEqual([
        {
          source: '<inline>',
          path: 'timeline.0.run',
          message: "expected a duration such as '250ms', '5s' or '2m'; found integer 5",
        },
      ]);
    }
  });
});
