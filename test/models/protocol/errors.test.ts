import { describe, expect, it } from 'vitest';
import {
  type ErrorName,
  Errors,
  errorByCode,
  type FailureName,
  isKnownErrorCode,
  KafkaError,
  kafkaError,
} from '../../../models/protocol/index.ts';

const NOT_LEADER_MESSAGE =
  'For requests intended only for the leader, this error indicates that the broker is not the current leader. ' +
  'For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.';

describe('Errors table', () => {
  it('has every code the models use, with Kafka’s number (Errors.java)', () => {
    const expected: Array<[ErrorName, number]> = [
      ['UNKNOWN_SERVER_ERROR', -1],
      ['NONE', 0],
      ['OFFSET_OUT_OF_RANGE', 1],
      ['UNKNOWN_TOPIC_OR_PARTITION', 3],
      ['LEADER_NOT_AVAILABLE', 5],
      ['NOT_LEADER_OR_FOLLOWER', 6],
      ['REQUEST_TIMED_OUT', 7],
      ['COORDINATOR_LOAD_IN_PROGRESS', 14],
      ['COORDINATOR_NOT_AVAILABLE', 15],
      ['NOT_COORDINATOR', 16],
      ['NOT_ENOUGH_REPLICAS', 19],
      ['NOT_ENOUGH_REPLICAS_AFTER_APPEND', 20],
      ['ILLEGAL_GENERATION', 22],
      ['INCONSISTENT_GROUP_PROTOCOL', 23],
      ['INVALID_GROUP_ID', 24],
      ['UNKNOWN_MEMBER_ID', 25],
      ['INVALID_SESSION_TIMEOUT', 26],
      ['REBALANCE_IN_PROGRESS', 27],
      ['TOPIC_ALREADY_EXISTS', 36],
      ['INVALID_PARTITIONS', 37],
      ['INVALID_REPLICATION_FACTOR', 38],
      ['INVALID_REPLICA_ASSIGNMENT', 39],
      ['INVALID_CONFIG', 40],
      ['NOT_CONTROLLER', 41],
      ['INVALID_REQUEST', 42],
      ['REASSIGNMENT_IN_PROGRESS', 60],
      ['NON_EMPTY_GROUP', 68],
      ['GROUP_ID_NOT_FOUND', 69],
      ['FENCED_LEADER_EPOCH', 74],
      ['UNKNOWN_LEADER_EPOCH', 75],
      ['MEMBER_ID_REQUIRED', 79],
      ['GROUP_MAX_SIZE_REACHED', 81],
      ['FENCED_INSTANCE_ID', 82],
      ['NO_REASSIGNMENT_IN_PROGRESS', 85],
      ['THROTTLING_QUOTA_EXCEEDED', 89],
      ['INVALID_UPDATE_VERSION', 95],
      ['UNKNOWN_TOPIC_ID', 100],
      ['INELIGIBLE_REPLICA', 107],
      ['FENCED_MEMBER_EPOCH', 110],
      ['UNSUPPORTED_ASSIGNOR', 112],
      ['STALE_MEMBER_EPOCH', 113],
    ];
    for (const [name, code] of expected) {
      expect(Errors[name].code, name).toBe(code);
      expect(errorByCode(code).name).toBe(name);
    }
  });

  it('keeps codes unique and every entry named after its key', () => {
    const all = Object.entries(Errors);
    expect(new Set(all.map(([, e]) => e.code)).size).toBe(all.length);
    for (const [name, e] of all) expect(e.name).toBe(name);
  });

  it('gives NOT_LEADER_OR_FOLLOWER its Java class, default message and retriability', () => {
    const e = Errors.NOT_LEADER_OR_FOLLOWER;
    expect(e).toEqual({
      code: 6,
      name: 'NOT_LEADER_OR_FOLLOWER',
      retriable: true,
      invalidMetadata: true,
      exceptionClass: 'NotLeaderOrFollowerException',
      message: NOT_LEADER_MESSAGE,
    });
  });

  it('records the Java client’s retriable flag (RetriableException subclasses)', () => {
    const retriable: FailureName[] = [
      'UNKNOWN_TOPIC_OR_PARTITION',
      'LEADER_NOT_AVAILABLE',
      'REQUEST_TIMED_OUT',
      'NOT_COORDINATOR',
      'NOT_ENOUGH_REPLICAS',
      'NOT_CONTROLLER',
      'FENCED_LEADER_EPOCH',
      'UNKNOWN_LEADER_EPOCH',
      'THROTTLING_QUOTA_EXCEEDED',
      'UNKNOWN_TOPIC_ID',
    ];
    const fatal: FailureName[] = [
      'UNKNOWN_SERVER_ERROR',
      'OFFSET_OUT_OF_RANGE',
      'ILLEGAL_GENERATION',
      'UNKNOWN_MEMBER_ID',
      'REBALANCE_IN_PROGRESS',
      'TOPIC_ALREADY_EXISTS',
      'INVALID_REPLICATION_FACTOR',
      'INVALID_UPDATE_VERSION',
      'INELIGIBLE_REPLICA',
      'FENCED_MEMBER_EPOCH',
    ];
    for (const n of retriable) expect(Errors[n].retriable, n).toBe(true);
    for (const n of fatal) expect(Errors[n].retriable, n).toBe(false);
    expect(Errors.NOT_COORDINATOR.invalidMetadata).toBe(false);
    expect(Errors.NETWORK_EXCEPTION.invalidMetadata).toBe(true);
  });

  it('has a class and message for every error but NONE', () => {
    expect(Errors.NONE.exceptionClass).toBeNull();
    expect(Errors.NONE.message).toBeNull();
    for (const e of Object.values(Errors)) {
      if (e.name === 'NONE') continue;
      expect(e.exceptionClass, e.name).toMatch(/^[A-Z][A-Za-z]+$/);
      expect((e.message ?? '').length, e.name).toBeGreaterThan(10);
    }
    expect(Errors.TOPIC_ALREADY_EXISTS.exceptionClass).toBe('TopicExistsException');
    expect(Errors.REQUEST_TIMED_OUT.exceptionClass).toBe('TimeoutException');
  });

  it('reads unknown codes as UNKNOWN_SERVER_ERROR, as Errors.forCode does', () => {
    expect(errorByCode(9999).name).toBe('UNKNOWN_SERVER_ERROR');
    expect(isKnownErrorCode(9999)).toBe(false);
    expect(isKnownErrorCode(74)).toBe(true);
  });
});

describe('KafkaError', () => {
  it('prints like Java’s Throwable.toString with the default message', () => {
    const e = kafkaError('NOT_LEADER_OR_FOLLOWER');
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(KafkaError);
    expect(e.toString()).toBe(
      `org.apache.kafka.common.errors.NotLeaderOrFollowerException: ${NOT_LEADER_MESSAGE}`,
    );
    expect(e.code).toBe(6);
    expect(e.name).toBe('NOT_LEADER_OR_FOLLOWER');
    expect(e.retriable).toBe(true);
    expect(e.message).toBe(NOT_LEADER_MESSAGE);
  });

  it('uses a given message instead of the default, even an empty one', () => {
    const e = kafkaError('TOPIC_ALREADY_EXISTS', "Topic 'orders' already exists.");
    expect(e.toString()).toBe(
      "org.apache.kafka.common.errors.TopicExistsException: Topic 'orders' already exists.",
    );
    expect(e.retriable).toBe(false);
    expect(kafkaError('INVALID_CONFIG', '').toString()).toBe(
      'org.apache.kafka.common.errors.InvalidConfigurationException: ',
    );
  });

  it('refuses NONE and names it does not know', () => {
    // @ts-expect-error NONE is not a failure
    expect(() => kafkaError('NONE')).toThrow(TypeError);
    // @ts-expect-error not an error name
    expect(() => new KafkaError('NOPE')).toThrow(/NOPE/);
  });
});
