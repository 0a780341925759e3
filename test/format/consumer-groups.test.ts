import { describe, expect, it } from 'vitest';
import {
  type ConsumerGroupView,
  formatConsumerGroupMembers,
  formatConsumerGroupOffsets,
  formatConsumerGroupState,
  formatMemberAssignment,
} from '../../src/format/index.ts';

// Expected column layouts were produced with printf-style %-Ns (Python), i.e. independently of src/format.

const member = (consumerId: string, partitions: number[], topic = 'lake-events') => ({
  consumerId,
  clientId: 'rdkafka',
  host: '/127.0.0.1',
  assignment: partitions.map((partition) => ({ topic, partition })),
});

// Workflow B after phase 1: 4 workers, 2 partitions, two workers idle.
const bend: ConsumerGroupView = {
  groupId: 'bend-ingest-group',
  state: 'Stable',
  coordinator: { id: 1, host: 'broker-1.local', port: 9092 },
  assignmentStrategy: 'range',
  members: [
    member('rdkafka-w0-aaaa', []),
    member('rdkafka-w1-bbbbbbbb', [1]),
    member('rdkafka-w2-cccc', [0]),
    member('rdkafka-w3-dddd', []),
  ],
  offsets: [
    { topic: 'lake-events', partition: 0, committedOffset: 5000, logEndOffset: 5000 },
    { topic: 'lake-events', partition: 1, committedOffset: 4990, logEndOffset: 5000 },
  ],
};

describe('--describe (offsets)', () => {
  it('prints a row per owned partition; widths max(15, longest); each row starts with a newline; idle members skipped', () => {
    expect(formatConsumerGroupOffsets(bend)).toEqual({
      stdout:
        '\nGROUP             TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID         HOST            CLIENT-ID' +
        '\nbend-ingest-group lake-events     1          4990            5000            10              rdkafka-w1-bbbbbbbb /127.0.0.1      rdkafka' +
        '\nbend-ingest-group lake-events     0          5000            5000            0               rdkafka-w2-cccc     /127.0.0.1      rdkafka' +
        '\n',
      stderr: '',
    });
  });

  it('prints a member’s partitions in java.util.HashMap order (as a JVM iterates them)', () => {
    const g: ConsumerGroupView = {
      groupId: 'perf',
      state: 'Stable',
      coordinator: { id: 2, host: 'b2', port: 9092 },
      assignmentStrategy: 'range',
      members: [
        {
          consumerId: 'consumer-1-abc',
          clientId: 'consumer-1',
          host: '/10.0.0.9',
          assignment: [0, 1, 2, 3, 4, 5, 6, 7].map((partition) => ({
            topic: 'continuous-self-balancing-topic',
            partition,
          })),
        },
      ],
      offsets: [0, 1, 2, 3, 4, 5, 6, 7].map((partition) => ({
        topic: 'continuous-self-balancing-topic',
        partition,
        committedOffset: 100,
        logEndOffset: 110,
      })),
    };
    const partitions = formatConsumerGroupOffsets(g)
      .stdout.split('\n')
      .slice(2, -1)
      .map((line) => line.split(/ +/)[2]);
    expect(partitions).toEqual(['0', '1', '6', '7', '2', '3', '4', '5']);
    expect(formatConsumerGroupOffsets(g).stdout.split('\n')[2]).toBe(
      'perf            continuous-self-balancing-topic 0          100             110             10              consumer-1-abc  /10.0.0.9       consumer-1',
    );
  });

  it('orders members by partition count, most first, keeping coordinator order on ties', () => {
    const g: ConsumerGroupView = {
      ...bend,
      members: [member('m-a', [0]), member('m-b', [1, 2, 3]), member('m-c', [4]), member('m-d', [5, 6])],
      offsets: [],
    };
    const owners = formatConsumerGroupOffsets(g)
      .stdout.split('\n')
      .slice(2, -1)
      .map((line) => line.split(/ +/)[6]);
    expect(owners).toEqual(['m-b', 'm-b', 'm-b', 'm-d', 'm-d', 'm-a', 'm-c']);
    // No committed offsets and no log end offsets: every number column shows `-`.
    expect(formatConsumerGroupOffsets(g).stdout.split('\n')[2]).toMatch(
      /^bend-ingest-group lake-events +\d+ +- +- +- +m-b /,
    );
  });

  it('for an Empty group: stderr notice, then committed partitions with - for consumer, host and client', () => {
    const g: ConsumerGroupView = {
      groupId: 'cg',
      state: 'Empty',
      coordinator: { id: 1, host: 'localhost', port: 9092 },
      assignmentStrategy: '',
      members: [],
      offsets: [
        { topic: 't', partition: 0, committedOffset: 7 },
        { topic: 't', partition: 1, committedOffset: 3, logEndOffset: 9 },
        { topic: 't', partition: 2, logEndOffset: 4 },
      ],
    };
    expect(formatConsumerGroupOffsets(g)).toEqual({
      stdout:
        '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID' +
        '\ncg              t               1          3               9               6               -               -               -' +
        '\ncg              t               0          7               -               -               -               -               -' +
        '\n',
      stderr: "\nConsumer group 'cg' has no active members.\n",
    });
    expect(formatConsumerGroupOffsets({ ...g, offsets: [] })).toEqual({
      stdout: '',
      stderr: "\nConsumer group 'cg' has no active members.\n",
    });
  });

  it('warns on stderr while rebalancing, reports a Dead group on stdout, and prints groups sorted by id', () => {
    const rebalancing: ConsumerGroupView = { ...bend, groupId: 'b-group', state: 'PreparingRebalance' };
    const dead: ConsumerGroupView = {
      ...bend,
      groupId: 'a-missing',
      state: 'Dead',
      members: [],
      offsets: [],
    };
    const out = formatConsumerGroupOffsets([rebalancing, dead]);
    expect(out.stderr).toBe("\nWarning: Consumer group 'b-group' is rebalancing.\n");
    expect(out.stdout.startsWith("\nError: Consumer group 'a-missing' does not exist.\n\nGROUP ")).toBe(true);
    expect(out.stdout.split('\n')).toHaveLength(7);
  });
});

describe('--describe --state', () => {
  it('prints the state table with the coordinator as host:port  (id)', () => {
    expect(formatConsumerGroupState(bend)).toEqual({
      stdout:
        '\nGROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS' +
        '\nbend-ingest-group         broker-1.local:9092  (1)  range                Stable          4' +
        '\n',
      stderr: '',
    });
  });

  it('widens the first column to a long coordinator string (the tool’s own sizing) and still prints Empty groups', () => {
    const long: ConsumerGroupView = {
      ...bend,
      groupId: 'g',
      state: 'PreparingRebalance',
      coordinator: { id: 1, host: 'kafka-broker-1.example.internal', port: 9092 },
      members: [member('x', []), member('y', [])],
    };
    expect(formatConsumerGroupState(long).stdout).toBe(
      '\nGROUP                                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS' +
        '\ng                                         kafka-broker-1.example.internal:9092  (1) range                PreparingRebalance 2' +
        '\n',
    );
    const empty = formatConsumerGroupState({
      ...bend,
      groupId: 'cg',
      state: 'Empty',
      coordinator: { id: 1, host: 'localhost', port: 9092 },
      assignmentStrategy: '',
      members: [],
    });
    expect(empty.stderr).toBe("\nConsumer group 'cg' has no active members.\n");
    expect(empty.stdout.split('\n')[2]).toBe(
      'cg                        localhost:9092  (1)                            Empty           0',
    );
    expect(formatConsumerGroupState({ ...bend, state: 'Dead' })).toEqual({
      stdout: "\nError: Consumer group 'bend-ingest-group' does not exist.\n",
      stderr: '',
    });
  });
});

describe('--describe --members', () => {
  it('prints one row per member in coordinator order, with the trailing column space', () => {
    expect(formatConsumerGroupMembers(bend).stdout).toBe(
      '\nGROUP             CONSUMER-ID         HOST            CLIENT-ID       #PARTITIONS     \n' +
        'bend-ingest-group rdkafka-w0-aaaa     /127.0.0.1      rdkafka         0               \n' +
        'bend-ingest-group rdkafka-w1-bbbbbbbb /127.0.0.1      rdkafka         1               \n' +
        'bend-ingest-group rdkafka-w2-cccc     /127.0.0.1      rdkafka         1               \n' +
        'bend-ingest-group rdkafka-w3-dddd     /127.0.0.1      rdkafka         0               \n',
    );
  });

  it('adds GROUP-INSTANCE-ID when a member has one, and the ASSIGNMENT column with --verbose', () => {
    const g: ConsumerGroupView = {
      ...bend,
      groupId: 'g',
      members: [
        {
          consumerId: 'c-1',
          groupInstanceId: 'static-a',
          clientId: 'app',
          host: '/10.0.0.1',
          assignment: [
            { topic: 'b', partition: 10 },
            { topic: 'a', partition: 2 },
            { topic: 'b', partition: 9 },
          ],
        },
        { consumerId: 'c-2', groupInstanceId: null, clientId: 'app', host: '/10.0.0.2', assignment: [] },
      ],
    };
    expect(formatConsumerGroupMembers(g, { verbose: true }).stdout).toBe(
      '\nGROUP           CONSUMER-ID     GROUP-INSTANCE-ID HOST            CLIENT-ID       #PARTITIONS     ASSIGNMENT\n' +
        'g               c-1             static-a          /10.0.0.1       app             3               a(2), b(9,10)\n' +
        'g               c-2                               /10.0.0.2       app             0               -\n',
    );
  });

  it('still prints the header for a group without members, after the stderr notice', () => {
    expect(
      formatConsumerGroupMembers({ ...bend, groupId: 'cg', state: 'Empty', members: [], offsets: [] }),
    ).toEqual({
      stdout: '\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n',
      stderr: "\nConsumer group 'cg' has no active members.\n",
    });
  });

  it('formats assignments topic by topic, partitions ascending', () => {
    expect(formatMemberAssignment([])).toBe('-');
    expect(
      formatMemberAssignment([
        { topic: 't', partition: 2 },
        { topic: 't', partition: 10 },
        { topic: 's', partition: 1 },
      ]),
    ).toBe('s(1), t(2,10)');
  });
});

// A consumer-protocol (KIP-848) group mid-reconciliation: member A still owns payments-3 and orders-1, which the
// target gives to B; B waits for them. The layout is Kafka 4.x's tool (trunk ConsumerGroupCommand's format strings).
const kip848: ConsumerGroupView = {
  groupId: 'orders-readers',
  type: 'consumer',
  state: 'Reconciling',
  coordinator: { id: 1, host: 'localhost', port: 9092 },
  assignmentStrategy: 'uniform',
  groupEpoch: 6,
  targetAssignmentEpoch: 6,
  members: [
    {
      consumerId: 'AAAAAAAAAAAAAAAAAAAAAA',
      clientId: 'consumer-orders-readers-1',
      host: '/127.0.0.1',
      assignment: [
        { topic: 'payments', partition: 3 },
        { topic: 'orders', partition: 1 },
        { topic: 'orders', partition: 0 },
      ],
      memberEpoch: 5,
      targetAssignment: [{ topic: 'orders', partition: 0 }],
      upgraded: true,
    },
    {
      consumerId: 'BBBBBBBBBBBBBBBBBBBBBB',
      clientId: 'consumer-orders-readers-2',
      host: '/127.0.0.1',
      assignment: [],
      memberEpoch: 4,
      targetAssignment: [
        { topic: 'payments', partition: 3 },
        { topic: 'orders', partition: 1 },
      ],
      upgraded: true,
    },
  ],
  offsets: [
    { topic: 'payments', partition: 3, committedOffset: 7, logEndOffset: 9 },
    { topic: 'orders', partition: 1, committedOffset: 10, logEndOffset: 10 },
    { topic: 'orders', partition: 0, committedOffset: 4, logEndOffset: 6 },
  ],
};

describe('Kafka 4.x layout (a consumer-protocol group)', () => {
  it('--state: GROUP as wide as the group id, STATE 20 wide; --verbose adds the group and target epochs', () => {
    expect(formatConsumerGroupState({ ...kip848, groupEpoch: 5, targetAssignmentEpoch: 5 }).stdout).toBe(
      '\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS\n' +
        'orders-readers  localhost:9092  (1)       uniform              Reconciling          2\n',
    );
    expect(
      formatConsumerGroupState({ ...kip848, groupEpoch: 5, targetAssignmentEpoch: 5 }, { verbose: true })
        .stdout,
    ).toBe(
      '\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n' +
        'orders-readers  localhost:9092  (1)       uniform              Reconciling          5               5                         2\n',
    );
  });

  it('--state --verbose of a classic group: - for the epochs it does not have and for no assignor', () => {
    const classic: ConsumerGroupView = {
      ...bend,
      groupId: 'a-very-long-group-name-here',
      state: 'Empty',
      coordinator: { id: 1, host: 'localhost', port: 9092 },
      assignmentStrategy: '',
      members: [],
    };
    expect(formatConsumerGroupState(classic, { verbose: true })).toEqual({
      stdout:
        '\nGROUP                       COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n' +
        'a-very-long-group-name-here localhost:9092  (1)       -                    Empty                -               -                         0\n',
      stderr: "\nConsumer group 'a-very-long-group-name-here' has no active members.\n",
    });
  });

  it('--members --verbose: each member epoch, the current and the target assignment as topic:0,1;other:2', () => {
    expect(formatConsumerGroupMembers(kip848, { verbose: true })).toEqual({
      stdout:
        '\nGROUP           CONSUMER-ID            HOST            CLIENT-ID                 #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT    TARGET-EPOCH    TARGET-ASSIGNMENT   \n' +
        'orders-readers  AAAAAAAAAAAAAAAAAAAAAA /127.0.0.1      consumer-orders-readers-1 3               5               orders:0,1;payments:3 6               orders:0            \n' +
        'orders-readers  BBBBBBBBBBBBBBBBBBBBBB /127.0.0.1      consumer-orders-readers-2 0               4               -                     6               orders:1;payments:3 \n',
      stderr: "\nWarning: Consumer group 'orders-readers' is rebalancing.\n",
    });
    // Without --verbose, the same columns as the 3.9 tool.
    expect(formatConsumerGroupMembers(kip848).stdout.split('\n')[1]).toBe(
      'GROUP           CONSUMER-ID            HOST            CLIENT-ID                 #PARTITIONS     ',
    );
  });

  it('--members --verbose of a group being migrated (members of both protocols): the UPGRADED column', () => {
    const migrating: ConsumerGroupView = {
      ...kip848,
      members: [kip848.members[0]!, { ...kip848.members[1]!, upgraded: false }],
    };
    expect(formatConsumerGroupMembers(migrating, { verbose: true }).stdout).toBe(
      '\nGROUP           CONSUMER-ID            HOST            CLIENT-ID                 #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT    TARGET-EPOCH    TARGET-ASSIGNMENT    UPGRADED\n' +
        'orders-readers  AAAAAAAAAAAAAAAAAAAAAA /127.0.0.1      consumer-orders-readers-1 3               5               orders:0,1;payments:3 6               orders:0             true\n' +
        'orders-readers  BBBBBBBBBBBBBBBBBBBBBB /127.0.0.1      consumer-orders-readers-2 0               4               -                     6               orders:1;payments:3  false\n',
    );
  });

  it("offsets: each member's partitions sorted by topic, then partition (not the 3.9 tool's HashMap order)", () => {
    const rows = formatConsumerGroupOffsets(kip848)
      .stdout.split('\n')
      .slice(2, 5)
      .map((line) => line.split(/ +/).slice(1, 3).join('-'));
    expect(rows).toEqual(['orders-0', 'orders-1', 'payments-3']);
  });

  it('a classic group alone prints as 3.9 does; one described beside a consumer-protocol group, as 4.x does', () => {
    expect(formatConsumerGroupMembers(bend, { verbose: true }).stdout).toMatch(/#PARTITIONS {5}ASSIGNMENT\n/);
    const both = formatConsumerGroupMembers([bend, kip848], { verbose: true }).stdout;
    expect(both).not.toMatch(/ASSIGNMENT\n/);
    expect(both.match(/CURRENT-EPOCH/g)).toHaveLength(2);
    expect(both).toMatch(
      /bend-ingest-group rdkafka-w1-bbbbbbbb +\/127\.0\.0\.1 +rdkafka +1 +- +lake-events:1 +- +- /,
    );
  });
});
