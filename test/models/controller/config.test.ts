import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTROLLER_CONFIG,
  effectiveTopicConfigs,
  KAFKASIM_ONLY_KEYS,
  resolveControllerConfig,
  TOPIC_CONFIGS,
  validateTopicConfigs,
} from '../../../models/controller/index.ts';
import { describeTopicConfigs, emptyImage } from '../../../models/metadata/index.ts';

describe('ControllerConfig', () => {
  it('has Kafka’s defaults under Kafka’s names', () => {
    expect(DEFAULT_CONTROLLER_CONFIG).toMatchObject({
      'broker.heartbeat.interval.ms': 2000,
      'broker.session.timeout.ms': 9000,
      'num.partitions': 1,
      'default.replication.factor': 1,
      'unclean.leader.election.enable': false,
      'min.insync.replicas': 1,
    });
    expect(KAFKASIM_ONLY_KEYS.every((k) => k.startsWith('kafkasim.'))).toBe(true);
  });

  it('rejects unknown keys and bad values', () => {
    expect(resolveControllerConfig({ 'num.partitions': 6 })['num.partitions']).toBe(6);
    expect(() => resolveControllerConfig({ 'no.such': 1 } as never)).toThrow(
      "unknown controller config 'no.such'",
    );
    expect(() => resolveControllerConfig({ 'num.partitions': 0 })).toThrow('integer >= 1');
    expect(() => resolveControllerConfig({ 'unclean.leader.election.enable': 1 as never })).toThrow(
      'boolean',
    );
  });
});

describe('topic configs', () => {
  it("inherit from their broker synonym (server.properties) before Kafka's default", () => {
    const described = describeTopicConfigs(emptyImage(), 't', { 'log.segment.bytes': '536870912' });
    expect(described.find((c) => c.name === 'segment.bytes')).toEqual({
      name: 'segment.bytes',
      value: '536870912',
      source: 'STATIC_BROKER_CONFIG',
    });
    expect(described.find((c) => c.name === 'retention.ms')).toMatchObject({
      value: '604800000',
      source: 'DEFAULT_CONFIG',
    });
    expect(described.map((c) => c.name)).toEqual(TOPIC_CONFIGS.map((k) => k.name).sort());
  });

  it('accept every default', () => {
    const all = Object.fromEntries(TOPIC_CONFIGS.map((k) => [k.name, k.default]));
    expect(validateTopicConfigs(all)).toBeUndefined();
  });

  it.each([
    [
      { 'segment.bytes': '13' },
      'Invalid value 13 for configuration segment.bytes: Value must be at least 14',
    ],
    [{ 'retention.ms': '-2' }, 'Invalid value -2 for configuration retention.ms: Value must be at least -1'],
    [
      { 'retention.bytes': '1.5' },
      'Invalid value 1.5 for configuration retention.bytes: Not a number of type LONG',
    ],
    [
      { 'compression.type': 'brotli' },
      'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer',
    ],
    [
      { 'flush.messages': '9223372036854775808' },
      'Invalid value 9223372036854775808 for configuration flush.messages: Not a number of type LONG',
    ],
  ])('rejects %o', (configs, message) => {
    const e = validateTopicConfigs(configs);
    expect(e?.name).toBe('INVALID_CONFIG');
    expect(e?.message).toBe(message);
  });

  it('accept values Kafka accepts: trimmed, signed, case-insensitive booleans, lists', () => {
    expect(
      validateTopicConfigs({
        'retention.ms': ' -1 ',
        'unclean.leader.election.enable': 'TRUE',
        'cleanup.policy': 'compact, delete',
        'min.cleanable.dirty.ratio': '.25',
        'flush.messages': '9223372036854775807',
      }),
    ).toBeUndefined();
  });

  it('reports unknown names before bad values', () => {
    expect(validateTopicConfigs({ 'retention.ms': 'x', zzz: '1' })?.message).toBe(
      'Unknown topic config name: zzz',
    );
  });

  it('compute effective configs from defaults, the controller’s cluster values and overrides', () => {
    const config = resolveControllerConfig({ 'min.insync.replicas': 2 });
    const e = effectiveTopicConfigs(config, { 'retention.ms': '5' });
    expect(e['retention.ms']).toBe('5');
    expect(e['min.insync.replicas']).toBe('2');
    expect(e['cleanup.policy']).toBe('delete');
    expect(Object.keys(e)).toEqual([...Object.keys(e)].sort());
  });
});
