import { describe, expect, it } from 'vitest';
import { type AlterPartitionRequest, Errors } from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

function setup() {
  const h = new Harness({ brokers: [0, 1, 2] }).start();
  h.call({
    type: 'CreateTopics',
    topics: [{ name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1, 2]] }],
  });
  const alter = (change: Partial<AlterPartitionRequest>) => {
    const p = h.partition('t', 0);
    return h.call({
      type: 'AlterPartition',
      brokerId: 0,
      brokerEpoch: h.broker(0).brokerEpoch,
      topicId: h.topicId('t'),
      partition: 0,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: [0, 1],
      ...change,
    });
  };
  return { h, alter };
}

const code = (name: keyof typeof Errors) => Errors[name].code;

describe('AlterPartition', () => {
  it('shrinks and expands the ISR, bumping only the partition epoch', () => {
    const { h, alter } = setup();
    const shrunk = alter({ newIsr: [0, 1] });
    expect(shrunk).toEqual({ errorCode: 0, leader: 0, leaderEpoch: 0, partitionEpoch: 1, isr: [0, 1] });
    expect(h.partition('t', 0)).toMatchObject({ isr: [0, 1], leaderEpoch: 0, partitionEpoch: 1 });
    const expanded = alter({ newIsr: [0, 1, 2] });
    expect(expanded).toMatchObject({ errorCode: 0, partitionEpoch: 2, isr: [0, 1, 2] });
    expect(h.eventsOf('controller.isr').map((e) => e.isr)).toEqual([
      [0, 1],
      [0, 1, 2],
    ]);
  });

  it('answers an unchanged ISR without writing anything', () => {
    const { h, alter } = setup();
    const end = h.controller.metadataLog.endOffset;
    expect(alter({ newIsr: [0, 1, 2] })).toMatchObject({ errorCode: 0, partitionEpoch: 0 });
    expect(h.controller.metadataLog.endOffset).toBe(end);
  });

  it('rejects an old leader epoch with FENCED_LEADER_EPOCH', () => {
    const { h } = setup();
    h.broker(0).crash();
    h.runUntil(() => h.partition('t', 0).leader === 1, 'new leader', '30s');
    const r = h.call({
      type: 'AlterPartition',
      brokerId: 1,
      brokerEpoch: h.broker(1).brokerEpoch,
      topicId: h.topicId('t'),
      partition: 0,
      leaderEpoch: 0,
      partitionEpoch: h.partition('t', 0).partitionEpoch,
      newIsr: [1],
    });
    expect(r).toMatchObject({
      errorCode: code('FENCED_LEADER_EPOCH'),
      errorMessage: Errors.FENCED_LEADER_EPOCH.message,
    });
  });

  it('rejects an old partition epoch with INVALID_UPDATE_VERSION', () => {
    const { h, alter } = setup();
    alter({ newIsr: [0, 1] });
    expect(alter({ partitionEpoch: 0, newIsr: [0] })).toMatchObject({
      errorCode: code('INVALID_UPDATE_VERSION'),
    });
    expect(h.partition('t', 0).isr).toEqual([0, 1]);
  });

  it('treats epochs newer than its own as a sign it is not the controller', () => {
    const { alter } = setup();
    expect(alter({ leaderEpoch: 5 })).toMatchObject({ errorCode: code('NOT_CONTROLLER') });
    expect(alter({ partitionEpoch: 5 })).toMatchObject({ errorCode: code('NOT_CONTROLLER') });
  });

  it('rejects requests from a non-leader and ISRs without the leader or outside the replicas', () => {
    const { h, alter } = setup();
    expect(alter({ brokerId: 1, brokerEpoch: h.broker(1).brokerEpoch })).toMatchObject({
      errorCode: code('INVALID_REQUEST'),
    });
    expect(alter({ newIsr: [1, 2] })).toMatchObject({ errorCode: code('INVALID_REQUEST') });
    expect(alter({ newIsr: [0, 3] })).toMatchObject({ errorCode: code('INVALID_REQUEST') });
    expect(alter({ newIsr: [0, 0] })).toMatchObject({ errorCode: code('INVALID_REQUEST') });
    expect(h.eventsOf('controller.alter-partition').map((e) => e.error)).toEqual([
      'INVALID_REQUEST',
      'INVALID_REQUEST',
      'INVALID_REQUEST',
      'INVALID_REQUEST',
    ]);
  });

  it('lets only active brokers join the ISR (INELIGIBLE_REPLICA)', () => {
    const { h, alter } = setup();
    alter({ newIsr: [0, 1] });
    h.broker(2).crash();
    h.runUntil(() => !h.isUnfenced(2), 'fenced', '30s');
    expect(alter({ newIsr: [0, 1, 2] })).toMatchObject({ errorCode: code('INELIGIBLE_REPLICA') });
    expect(h.eventsOf('controller.alter-partition').at(-1)).toMatchObject({
      error: 'INELIGIBLE_REPLICA',
      detail: 'The new ISR [0,1,2] contains ineligible replicas: 2 (fenced).',
    });
  });

  it('rejects a stale broker epoch and unknown topics or partitions', () => {
    const { h, alter } = setup();
    expect(alter({ brokerEpoch: 999 })).toMatchObject({
      errorCode: code('STALE_BROKER_EPOCH'),
      errorMessage: `Expected broker epoch ${h.broker(0).brokerEpoch}, but got broker epoch 999`,
    });
    expect(alter({ topicId: 'AAAAAAAAAAAAAAAAAAAAAA' })).toMatchObject({
      errorCode: code('UNKNOWN_TOPIC_ID'),
    });
    expect(alter({ partition: 4 })).toMatchObject({ errorCode: code('UNKNOWN_TOPIC_OR_PARTITION') });
  });
});
