import { describe, expect, it } from 'vitest';
import {
  type AlterConfigOp,
  Errors,
  type IncrementalAlterConfigsRequest,
} from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

type ResourceType = IncrementalAlterConfigsRequest['resources'][number]['resourceType'];

function setup() {
  const h = new Harness({ brokers: [0, 1] }).start();
  h.createTopic('t', 1, 2);
  const alter = (
    resourceType: ResourceType,
    resourceName: string,
    configs: AlterConfigOp[],
    validateOnly = false,
  ) =>
    h.call({
      type: 'IncrementalAlterConfigs',
      resources: [{ resourceType, resourceName, configs }],
      validateOnly,
    }).resources[0]!;
  return { h, alter };
}

const error = (name: keyof typeof Errors, message: string) => ({
  errorCode: Errors[name].code,
  errorMessage: message,
});

describe('IncrementalAlterConfigs: topics', () => {
  it('sets and deletes topic overrides', () => {
    const { h, alter } = setup();
    expect(
      alter('TOPIC', 't', [
        { name: 'retention.ms', op: 'SET', value: '60000' },
        { name: 'cleanup.policy', op: 'SET', value: 'compact' },
      ]),
    ).toEqual({ resourceType: 'TOPIC', resourceName: 't', errorCode: 0 });
    expect(h.image.configs.topic.t).toEqual({ 'retention.ms': '60000', 'cleanup.policy': 'compact' });
    alter('TOPIC', 't', [{ name: 'retention.ms', op: 'DELETE' }]);
    expect(h.image.configs.topic.t).toEqual({ 'cleanup.policy': 'compact' });
    expect(h.eventsOf('controller.alter-configs').at(-1)).toMatchObject({
      resourceName: 't',
      changes: [{ name: 'retention.ms', value: null }],
    });
  });

  it('writes no record for a value that does not change', () => {
    const { h, alter } = setup();
    alter('TOPIC', 't', [{ name: 'retention.ms', op: 'SET', value: '5' }]);
    const end = h.controller.metadataLog.endOffset;
    expect(alter('TOPIC', 't', [{ name: 'retention.ms', op: 'SET', value: '5' }]).errorCode).toBe(0);
    expect(alter('TOPIC', 't', [{ name: 'segment.ms', op: 'DELETE' }]).errorCode).toBe(0);
    expect(h.controller.metadataLog.endOffset).toBe(end);
  });

  it('rejects unknown keys and bad values, checking the whole resource before its existence', () => {
    const { h, alter } = setup();
    expect(alter('TOPIC', 't', [{ name: 'not.a.real.topic.config', op: 'SET', value: '1' }])).toMatchObject(
      error('INVALID_CONFIG', 'Unknown topic config name: not.a.real.topic.config'),
    );
    expect(alter('TOPIC', 't', [{ name: 'max.message.bytes', op: 'SET', value: '-5' }])).toMatchObject(
      error(
        'INVALID_CONFIG',
        'Invalid value -5 for configuration max.message.bytes: Value must be at least 0',
      ),
    );
    expect(alter('TOPIC', 't', [{ name: 'min.cleanable.dirty.ratio', op: 'SET', value: '2' }])).toMatchObject(
      error(
        'INVALID_CONFIG',
        'Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1',
      ),
    );
    expect(alter('TOPIC', 'baz', [{ name: 'segment.jitter.ms', op: 'SET', value: '345' }])).toMatchObject(
      error('UNKNOWN_TOPIC_OR_PARTITION', "The topic 'baz' does not exist."),
    );
    expect(alter('TOPIC', 'baz', [{ name: 'bogus', op: 'SET', value: '1' }])).toMatchObject(
      error('INVALID_CONFIG', 'Unknown topic config name: bogus'),
    );
    expect(
      alter('TOPIC', 't', [
        { name: 'retention.ms', op: 'SET', value: '1' },
        { name: 'retention.ms', op: 'DELETE' },
      ]),
    ).toMatchObject(error('INVALID_REQUEST', 'Error due to duplicate config keys'));
    expect(h.image.configs.topic.t).toBeUndefined();
  });

  it('validateOnly validates and writes nothing', () => {
    const { h, alter } = setup();
    expect(alter('TOPIC', 't', [{ name: 'retention.ms', op: 'SET', value: '7' }], true).errorCode).toBe(0);
    expect(h.image.configs.topic.t).toBeUndefined();
  });

  it('a topic override of unclean.leader.election.enable turns on unclean election for that topic only', () => {
    const { h, alter } = setup();
    h.call({
      type: 'CreateTopics',
      topics: [
        { name: 'clean', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1]] },
        { name: 'dirty', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1]] },
      ],
    });
    alter('TOPIC', 'dirty', [{ name: 'unclean.leader.election.enable', op: 'SET', value: 'true' }]);
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced 1', '30s');
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced 0', '30s');
    h.broker(1).start();
    h.runUntil(() => h.isUnfenced(1), 'unfenced 1', '60s');
    expect(h.partition('clean', 0).leader).toBe(-1);
    expect(h.partition('dirty', 0)).toMatchObject({ leader: 1, isr: [1] });
  });
});

describe('IncrementalAlterConfigs: brokers', () => {
  it('sets cluster-wide and per-broker configs, always writing a record', () => {
    const { h, alter } = setup();
    expect(alter('BROKER', '', [{ name: 'log.retention.ms', op: 'SET', value: '100' }]).errorCode).toBe(0);
    expect(alter('BROKER', '1', [{ name: 'log.retention.ms', op: 'SET', value: '200' }]).errorCode).toBe(0);
    expect(h.image.configs.broker).toEqual({
      '': { 'log.retention.ms': '100' },
      '1': { 'log.retention.ms': '200' },
    });
    const end = h.controller.metadataLog.endOffset;
    alter('BROKER', '1', [{ name: 'log.retention.ms', op: 'SET', value: '200' }]);
    expect(h.controller.metadataLog.endOffset).toBe(end + 1);
    alter('BROKER', '1', [{ name: 'log.retention.ms', op: 'DELETE' }]);
    expect(h.image.configs.broker['1']).toBeUndefined();
  });

  it('rejects unknown broker ids and names that are not ids', () => {
    const { alter } = setup();
    expect(alter('BROKER', '9', [{ name: 'x', op: 'SET', value: '1' }])).toMatchObject(
      error('BROKER_ID_NOT_REGISTERED', 'No broker with id 9 found.'),
    );
    expect(alter('BROKER', 'abc', [{ name: 'x', op: 'SET', value: '1' }])).toMatchObject(
      error('INVALID_REQUEST', 'Unable to parse broker name abc'),
    );
  });

  it('a cluster-wide unclean.leader.election.enable applies to topics without an override', () => {
    const { h, alter } = setup();
    h.call({
      type: 'CreateTopics',
      topics: [{ name: 'c', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1]] }],
    });
    alter('BROKER', '', [{ name: 'unclean.leader.election.enable', op: 'SET', value: 'true' }]);
    h.broker(1).crash();
    h.runUntil(() => !h.isUnfenced(1), 'fenced 1', '30s');
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'fenced 0', '30s');
    h.broker(1).start();
    h.runUntil(() => h.partition('c', 0).leader === 1, 'unclean election', '60s');
    expect(h.eventsOf('controller.elect').at(-1)).toMatchObject({ unclean: true, leader: 1 });
  });
});
