// The event log's words (ui/src/words.ts): trace events as a teacher would say them, which of them are timeline
// markers, and the kinds the page asks the server for.
import { describe, expect, it } from 'vitest';
import { describeAny, reasonText, STREAM_KINDS, describe as say } from '../../ui/src/words.ts';

describe('the event log in plain words', () => {
  it('a fence says how long the broker was silent, as the session expiry before it measured', () => {
    const expired = say({
      t: 21_000,
      kind: 'controller.session-expired',
      brokerId: 2,
      lastContactMs: 11_500,
      sessionTimeoutMs: 9000,
    });
    expect(expired?.text).toBe('broker 2: no heartbeat for 9.5 s (broker.session.timeout.ms 9.0 s)');
    const fence = say({
      t: 21_000,
      kind: 'controller.fence',
      brokerId: 2,
      reason: 'session-timeout',
      partitionsChanged: 5,
    });
    expect(fence).toEqual({
      text: 'broker 2 fenced: no heartbeat for 9.5 s; 5 partition(s) change',
      category: 'election',
      marker: true,
    });
  });

  it('elections and ISR changes say where the leader came from and why', () => {
    expect(
      say({
        t: 1,
        kind: 'controller.elect',
        topic: 'orders',
        partition: 3,
        previousLeader: 2,
        leader: 4,
        isr: [4, 0],
        reason: 'broker-fenced:session-timeout',
      })?.text,
    ).toBe('partition orders-3 leader 2 -> 4 (from ISR), ISR [4,0]: a broker fenced (no heartbeat)');
    expect(
      say({
        t: 1,
        kind: 'controller.elect',
        topic: 't',
        partition: 0,
        previousLeader: 1,
        leader: 3,
        unclean: true,
        isr: [3],
        reason: 'x',
      })?.text,
    ).toMatch(/leader 1 -> 3 \(unclean: not from the ISR, data may be lost\)/);
    expect(
      say({
        t: 1,
        kind: 'controller.isr',
        topic: 't',
        partition: 0,
        previousIsr: [1, 2, 3],
        isr: [1, 2],
        reason: 'AlterPartition:1',
      })?.text,
    ).toBe('partition t-0 ISR [1,2,3] -> [1,2]: the leader, broker 1, asked (AlterPartition)');
    expect(reasonText('ElectLeaders:PREFERRED')).toBe('a preferred leader election');
    expect(reasonText('something-new')).toBe('something-new');
  });

  it('a topic creation says what was created, or why it was not', () => {
    const created = {
      t: 1,
      kind: 'controller.create-topics',
      topic: 'orders',
      numPartitions: 6,
      replicationFactor: 3,
    };
    expect(say(created)?.text).toBe('topic orders created: 6 partitions, replication factor 3');
    expect(say({ ...created, validateOnly: true })?.text).toBe(
      'topic orders could be created: 6 partitions, replication factor 3',
    );
    // A second coordinator asking for __consumer_offsets: refused, with Kafka's message (was "undefined partitions").
    expect(
      say({
        t: 2,
        kind: 'controller.create-topics',
        topic: '__consumer_offsets',
        validateOnly: false,
        errorCode: 36,
        errorMessage: "Topic '__consumer_offsets' already exists.",
      }),
    ).toEqual({
      text: "topic __consumer_offsets not created: Topic '__consumer_offsets' already exists.",
      category: 'other',
      marker: false,
    });
  });

  it('an event it does not know is shown as its kind and fields, not as a marker', () => {
    const d = describeAny({ t: 5, kind: 'controller.register', node: 'controller-3000', brokerId: 1 });
    expect(d).toEqual({
      text: 'controller.register controller-3000 {"brokerId":1}',
      category: 'other',
      marker: false,
    });
  });

  it('the page asks for every kind it explains', () => {
    const kinds = STREAM_KINDS.split(',');
    for (const kind of [
      'node.crash',
      'controller.fence',
      'raft.leader',
      'balancer.execute',
      'group.stable',
      'lesson.step',
      'net.slow',
      'invariant.violated',
      'fault.request-rule',
      'ingest.batch-lost',
    ])
      expect(
        kinds.some((p) => kind.startsWith(p)),
        kind,
      ).toBe(true);
  });
});
