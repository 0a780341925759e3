// kafka-consumer-groups.sh --describe on a live simulated group, byte for byte (ConsumerGroupCommand): the
// offsets view with lag, --state with the coordinator, --members [--verbose], and the rebalancing, no active
// members and does-not-exist messages. The views come from real DescribeGroups/OffsetFetch/ListOffsets calls.
import { describe, expect, it } from 'vitest';
import type { GroupConsumer } from '../../models/clients/index.ts';
import { type Cluster, createCluster } from '../../src/cluster/index.ts';

function billing(): { c: Cluster; ms: GroupConsumer[] } {
  const c = createCluster({ seed: 5, brokers: 3, storage: 'shared' });
  c.admin.createTopic({ name: 'orders', partitions: 3 });
  const ms = [0, 1].map((i) =>
    c.groupConsumer(`m${i}`, {
      groupId: 'billing',
      topics: ['orders'],
      config: { 'auto.offset.reset': 'earliest' },
    }),
  );
  const p = c.producer('p');
  for (let i = 0; i < 30; i++) p.send({ topic: 'orders', partition: i % 3, value: `v${i}` });
  return { c, ms };
}

describe('kafka-consumer-groups --describe', () => {
  it('prints the rebalancing warning while the first rebalance waits (nothing committed yet: no rows)', () => {
    const { c } = billing();
    c.runFor('1s');
    expect(c.describeGroup('billing')).toEqual({
      stdout: '',
      stderr: "\nWarning: Consumer group 'billing' is rebalancing.\n",
    });
  });

  it('offsets, --state and --members views of a Stable group', () => {
    const { c, ms } = billing();
    c.runFor('16s');
    const [one, two] = ms.map((m) => m.memberId) as [string, string];
    expect(one).toMatch(
      /^consumer-billing-1-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(c.describeGroup('billing')).toEqual({
      stdout:
        '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                                             HOST            CLIENT-ID' +
        `\nbilling         orders          0          10              10              0               ${one} /127.0.0.1      consumer-billing-1` +
        `\nbilling         orders          1          10              10              0               ${one} /127.0.0.1      consumer-billing-1` +
        `\nbilling         orders          2          10              10              0               ${two} /127.0.0.1      consumer-billing-2` +
        '\n',
      stderr: '',
    });
    // Broker 1 leads the group's __consumer_offsets partition; its port is 9092 + id.
    expect(c.groupCoordinator('billing')).toBe(1);
    expect(c.describeGroup('billing', { state: true })).toEqual({
      stdout:
        '\nGROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS' +
        '\nbilling                   localhost:9093  (1)       range                Stable          2\n',
      stderr: '',
    });
    // Members in the coordinator's order (the second member's JoinGroup arrived first).
    expect(c.describeGroup('billing', { members: true, verbose: true })).toEqual({
      stdout:
        '\nGROUP           CONSUMER-ID                                             HOST            CLIENT-ID          #PARTITIONS     ASSIGNMENT\n' +
        `billing         ${two} /127.0.0.1      consumer-billing-2 1               orders(2)\n` +
        `billing         ${one} /127.0.0.1      consumer-billing-1 2               orders(0,1)\n`,
      stderr: '',
    });
  });

  it('shows lag = log end − committed, and `-` for a partition without a committed offset', () => {
    const c = createCluster({ seed: 5, brokers: 3, storage: 'shared' });
    c.admin.createTopic({ name: 'orders', partitions: 2 });
    const p = c.producer('p');
    for (let i = 0; i < 20; i++) p.send({ topic: 'orders', partition: i % 2, value: `v${i}` });
    const m = c.groupConsumer('solo', {
      groupId: 'manual',
      topics: ['orders'],
      config: { 'enable.auto.commit': false, 'auto.offset.reset': 'earliest' },
    });
    c.runUntil(() => m.recordsConsumed === 20, { timeout: '30s' });
    let done = false;
    m.commitOffsets([{ topic: 'orders', partition: 0, offset: 4 }], () => {
      done = true;
    });
    c.runUntil(() => done, { timeout: '5s' });
    const id = m.memberId;
    expect(c.describeGroup('manual').stdout).toBe(
      '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID                                            HOST            CLIENT-ID' +
        `\nmanual          orders          0          4               10              6               ${id} /127.0.0.1      consumer-manual-1` +
        `\nmanual          orders          1          -               10              -               ${id} /127.0.0.1      consumer-manual-1` +
        '\n',
    );
  });

  it('after every member closed: "has no active members", committed offsets with `-` owners', () => {
    const { c, ms } = billing();
    c.runFor('16s');
    for (const m of ms) m.close();
    c.runFor('2s');
    expect(c.describeGroup('billing')).toEqual({
      stdout:
        '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID' +
        // Unowned partitions come out of a java.util.HashMap<TopicPartition, _> in the tool.
        '\nbilling         orders          0          10              10              0               -               -               -' +
        '\nbilling         orders          1          10              10              0               -               -               -' +
        '\nbilling         orders          2          10              10              0               -               -               -' +
        '\n',
      stderr: "\nConsumer group 'billing' has no active members.\n",
    });
    expect(c.describeGroup('billing', { state: true }).stdout).toContain('Empty           0');
    expect(c.listGroups()).toEqual([{ groupId: 'billing', state: 'Empty' }]);
  });

  it('a group nobody knows does not exist', () => {
    const { c } = billing();
    c.runFor('1s');
    expect(c.describeGroup('nobody')).toEqual({
      stdout: "\nError: Consumer group 'nobody' does not exist.\n",
      stderr: '',
    });
  });
});
