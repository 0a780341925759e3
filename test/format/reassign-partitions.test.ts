import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FormatInputError,
  formatExecute,
  formatGenerate,
  formatReassignmentJson,
  formatVerify,
  parseReassignmentJson,
  type ReassignmentEntry,
} from '../../src/format/index.ts';

const T = 'continuous-self-balancing-topic';

function errorOf(text: string): FormatInputError {
  try {
    parseReassignmentJson(text);
  } catch (e) {
    if (e instanceof FormatInputError) return e;
    throw e;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseReassignmentJson', () => {
  it('reads the move.json of the AutoMQ self-balancing example (partitions before version)', () => {
    const text = `{"partitions":[{"topic":"${T}","partition":0,"replicas":[2]},{"topic":"${T}","partition":1,"replicas":[2]}],"version":1}`;
    expect(parseReassignmentJson(text)).toEqual({
      version: 1,
      partitions: [
        { topic: T, partition: 0, replicas: [2] },
        { topic: T, partition: 1, replicas: [2] },
      ],
    });
  });

  it('keeps log_dirs when given, defaults version to 1, ignores unknown fields, keeps the last repeated key', () => {
    const text = `{
      "partitions": [{"topic": "t", "partition": 3, "replicas": [1, 2], "log_dirs": ["any", "/d2"], "x": true,
                      "partition": 4}],
      "comment": null
    }`;
    expect(parseReassignmentJson(text)).toEqual({
      version: 1,
      partitions: [{ topic: 't', partition: 4, replicas: [1, 2], log_dirs: ['any', '/d2'] }],
    });
  });

  it('rejects malformed JSON with line and column', () => {
    const e = errorOf('{"version":1,\n "partitions":[{"topic":"t",]}');
    expect(e.reason).toBe('json');
    expect(e.message).toBe('Invalid JSON at line 2, column 29: expected a string key, found "]"');
    expect(e.position).toEqual({ offset: 42, line: 2, column: 29 });
    expect(errorOf('{"version":1').message).toBe(
      "Invalid JSON at line 1, column 13: expected ',' or '}', found end of input",
    );
    expect(errorOf('{"a":1} x').reason).toBe('json');
    expect(errorOf('{"a":"\\q"}').reason).toBe('json');
  });

  it('rejects a missing field, naming the entry and where it starts', () => {
    const e = errorOf(
      '{"partitions":[{"topic":"t","partition":0,"replicas":[1]},\n{"topic":"t","replicas":[1]}]}',
    );
    expect(e.reason).toBe('missing-field');
    expect(e.path).toBe('partitions[1].partition');
    expect(e.message).toBe('partitions[1] is missing required field "partition" (line 2, column 1)');
    expect(errorOf('{"partitions":[{"partition":0,"replicas":[1]}]}').path).toBe('partitions[0].topic');
    expect(errorOf('{"partitions":[{"topic":"t","partition":0}]}').path).toBe('partitions[0].replicas');
  });

  it('rejects values of the wrong type, with path and position', () => {
    const cases: Array<[string, string, string]> = [
      ['[1]', '$', '$ must be an object, found array (line 1, column 1)'],
      ['{"partitions":{}}', 'partitions', 'partitions must be an array, found object (line 1, column 15)'],
      ['{"partitions":[7]}', 'partitions[0]', 'partitions[0] must be an object, found integer'],
      [
        '{"partitions":[{"topic":1,"partition":0,"replicas":[1]}]}',
        'partitions[0].topic',
        'must be a string, found integer',
      ],
      [
        '{"partitions":[{"topic":"t","partition":"0","replicas":[1]}]}',
        'partitions[0].partition',
        'must be an integer, found string',
      ],
      [
        '{"partitions":[{"topic":"t","partition":1.0,"replicas":[1]}]}',
        'partitions[0].partition',
        'found number',
      ],
      [
        '{"partitions":[{"topic":"t","partition":2147483648,"replicas":[1]}]}',
        'partitions[0].partition',
        'an integer',
      ],
      [
        '{"partitions":[{"topic":"t","partition":0,"replicas":2}]}',
        'partitions[0].replicas',
        'an array of integers',
      ],
      [
        '{"partitions":[{"topic":"t","partition":0,"replicas":[1,"2"]}]}',
        'partitions[0].replicas[1]',
        'an integer',
      ],
      [
        '{"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":"any"}]}',
        'partitions[0].log_dirs',
        'array of strings',
      ],
      [
        '{"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":[null]}]}',
        'partitions[0].log_dirs[0]',
        'found null',
      ],
      ['{"version":"1","partitions":[]}', 'version', 'version must be an integer, found string'],
    ];
    for (const [text, path, fragment] of cases) {
      const e = errorOf(text);
      expect(e.reason, text).toBe('type');
      expect(e.path, text).toBe(path);
      expect(e.message, text).toContain(fragment);
      expect(e.position?.line, text).toBe(1);
    }
  });

  it('rejects versions other than 1 with Kafka’s message', () => {
    const e = errorOf('{"version":2,"partitions":[]}');
    expect(e.reason).toBe('unsupported-version');
    expect(e.message).toBe('Not supported version field value 2');
  });

  it('rejects an empty reassignment and empty replica lists with Kafka’s messages', () => {
    for (const text of ['{"version":1}', '{"version":1,"partitions":[]}']) {
      const e = errorOf(text);
      expect(e.reason).toBe('empty-partitions');
      expect(e.message).toBe('Partition reassignment list cannot be empty');
    }
    const e = errorOf(
      '{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":1,"replicas":[]}]}',
    );
    expect(e.reason).toBe('empty-replicas');
    expect(e.path).toBe('partitions[1].replicas');
    expect(e.message).toBe('Partition replica list cannot be empty: t-1 (partitions[1].replicas)');
  });

  it('rejects duplicate partitions, naming both entries', () => {
    const e = errorOf(
      '{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"u","partition":0,"replicas":[1]},' +
        '{"topic":"t","partition":0,"replicas":[2]}]}',
    );
    expect(e.reason).toBe('duplicate-partition');
    expect(e.path).toBe('partitions[2]');
    expect(e.message).toBe(
      'Partition reassignment contains duplicate topic partitions: t-0 (partitions[0] and partitions[2])',
    );
  });

  it('rejects duplicate replicas with Kafka’s message listing every offending partition', () => {
    const e = errorOf(
      '{"partitions":[{"topic":"t","partition":0,"replicas":[1,2]},{"topic":"t","partition":1,"replicas":[3,1,3]},' +
        '{"topic":"t","partition":2,"replicas":[2,2,4,4]}]}',
    );
    expect(e.reason).toBe('duplicate-replica');
    expect(e.path).toBe('partitions[1].replicas');
    expect(e.message).toBe(
      'Partition replica lists may not contain duplicate entries: t-1 contains multiple entries for 3. ' +
        't-2 contains multiple entries for 2,4 (partitions[1].replicas)',
    );
  });

  it('rejects log_dirs whose length differs from replicas with Kafka’s message', () => {
    const e = errorOf('{"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}');
    expect(e.reason).toBe('log-dirs-length');
    expect(e.path).toBe('partitions[0].log_dirs');
    expect(e.message).toBe(
      'Size of replicas list [1, 2] is different from size of log dirs list [any] for partition t-0 ' +
        '(partitions[0].log_dirs, line 1, column 71)',
    );
  });
});

describe('formatReassignmentJson', () => {
  it('writes compact JSON sorted by topic then partition, log_dirs defaulting to any', () => {
    expect(
      formatReassignmentJson([
        { topic: 'b', partition: 10, replicas: [3] },
        { topic: 'b', partition: 2, replicas: [1, 2], log_dirs: ['/d1', 'any'] },
        { topic: 'a', partition: 5, replicas: [2, 1] },
      ]),
    ).toBe(
      '{"version":1,"partitions":[{"topic":"a","partition":5,"replicas":[2,1],"log_dirs":["any","any"]},' +
        '{"topic":"b","partition":2,"replicas":[1,2],"log_dirs":["/d1","any"]},' +
        '{"topic":"b","partition":10,"replicas":[3],"log_dirs":["any"]}]}',
    );
  });

  it('round-trips through parseReassignmentJson (property)', () => {
    const entry = fc.record({
      topic: fc.stringMatching(/^[a-zA-Z0-9._-]{1,12}$/),
      partition: fc.integer({ min: 0, max: 1000 }),
      replicas: fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 5 }),
    });
    const entries = fc.uniqueArray(entry, {
      minLength: 1,
      maxLength: 20,
      selector: (e) => `${e.topic}-${e.partition}`,
    });
    fc.assert(
      fc.property(entries, (list: ReassignmentEntry[]) => {
        const json = formatReassignmentJson(list);
        const parsed = parseReassignmentJson(json);
        expect(formatReassignmentJson(parsed)).toBe(json);
        expect(parsed.partitions.map((p) => p.log_dirs)).toEqual(
          parsed.partitions.map((p) => p.replicas.map(() => 'any')),
        );
      }),
    );
  });
});

describe('tool output', () => {
  const current: ReassignmentEntry[] = [
    { topic: T, partition: 1, replicas: [1] },
    { topic: T, partition: 0, replicas: [2] },
    { topic: T, partition: 2, replicas: [2] },
  ];

  it('prints --execute with the rollback JSON of the moved partitions and Kafka’s plural', () => {
    expect(
      formatExecute(current, [
        { topic: T, partition: 1 },
        { topic: T, partition: 0 },
      ]),
    ).toBe(
      'Current partition replica assignment\n\n' +
        `{"version":1,"partitions":[{"topic":"${T}","partition":0,"replicas":[2],"log_dirs":["any"]},` +
        `{"topic":"${T}","partition":1,"replicas":[1],"log_dirs":["any"]}]}\n\n` +
        'Save this to use as the --reassignment-json-file option during rollback\n' +
        `Successfully started partition reassignments for ${T}-0,${T}-1\n`,
    );
  });

  it('uses the singular for one partition and prints throttle lines when throttled', () => {
    const out = formatExecute(current, [{ topic: T, partition: 1 }], { interBrokerThrottle: 50000000 });
    expect(out.split('\n').slice(4)).toEqual([
      'Save this to use as the --reassignment-json-file option during rollback',
      'Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.',
      'The inter-broker throttle limit was set to 50000000 B/s',
      `Successfully started partition reassignment for ${T}-1`,
      '',
    ]);
  });

  it('prints --generate with both documents', () => {
    expect(
      formatGenerate(
        [{ topic: 't', partition: 0, replicas: [1] }],
        [{ topic: 't', partition: 0, replicas: [2] }],
      ),
    ).toBe(
      'Current partition replica assignment\n' +
        '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["any"]}]}\n\n' +
        'Proposed partition reassignment configuration\n' +
        '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2],"log_dirs":["any"]}]}\n',
    );
  });

  it('prints --verify statuses sorted, the empty move block, and the throttle clearing lines', () => {
    const out = formatVerify(
      [
        { topic: 'zeta', partition: 0, currentReplicas: [1, 2, 3], targetReplicas: [2, 3], done: false },
        { topic: 'alpha', partition: 1, currentReplicas: [2, 3], targetReplicas: [2, 3], done: true },
        { topic: 'alpha', partition: 0, currentReplicas: [1, 2], targetReplicas: [2, 3], done: true },
      ],
      { brokers: [5, 3, 1, 100, 17, 2, 1000], topics: ['zeta', 'alpha', 'orders', 'payments', T] },
    );
    expect(out).toBe(
      'Status of partition reassignment:\n' +
        'There is no active reassignment of partition alpha-0, but replica set is 1,2 rather than 2,3.\n' +
        'Reassignment of partition alpha-1 is completed.\n' +
        'Reassignment of partition zeta-0 is still in progress.\n' +
        '\n' +
        // HashSet iteration order as a JVM prints it for these values.
        'Clearing broker-level throttles on brokers 1,17,2,3,100,5,1000\n' +
        `Clearing topic-level throttles on topics zeta,${T},alpha,payments,orders\n`,
    );
  });

  it('uses the singular for one broker and one topic, and prints no clearing while moves are ongoing', () => {
    const status = [{ topic: 't', partition: 0, currentReplicas: [2], targetReplicas: [2], done: true }];
    expect(formatVerify(status, { brokers: [2, 2], topics: ['t'] })).toBe(
      'Status of partition reassignment:\nReassignment of partition t-0 is completed.\n\n' +
        'Clearing broker-level throttles on broker 2\nClearing topic-level throttles on topic t\n',
    );
    expect(formatVerify(status, null)).toBe(
      'Status of partition reassignment:\nReassignment of partition t-0 is completed.\n\n',
    );
  });
});
