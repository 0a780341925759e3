import { describe, expect, it } from 'vitest';
import { DEFAULT_QUORUM_CONFIG, parseQuorumVoters, resolveQuorumConfig } from '../../../models/raft/index.ts';

describe('quorum config', () => {
  it("has every controller.quorum.* key with Kafka's default (QuorumConfig)", () => {
    const quorumKeys = Object.fromEntries(
      Object.entries(DEFAULT_QUORUM_CONFIG).filter(([k]) => k.startsWith('controller.quorum.')),
    );
    expect(quorumKeys).toEqual({
      'controller.quorum.voters': '',
      'controller.quorum.bootstrap.servers': '',
      'controller.quorum.election.timeout.ms': 1000,
      'controller.quorum.fetch.timeout.ms': 2000,
      'controller.quorum.election.backoff.max.ms': 1000,
      'controller.quorum.request.timeout.ms': 2000,
      'controller.quorum.retry.backoff.ms': 20,
      'controller.quorum.append.linger.ms': 25,
    });
    // The flush guarantees are on and pre-vote off unless asked.
    expect(DEFAULT_QUORUM_CONFIG['kafkasim.raft.flush.enable']).toBe(true);
    expect(DEFAULT_QUORUM_CONFIG['kafkasim.raft.pre.vote.enable']).toBe(false);
  });

  it('overrides keys and rejects unknown keys and wrong types', () => {
    expect(
      resolveQuorumConfig({ 'controller.quorum.append.linger.ms': 0 })['controller.quorum.append.linger.ms'],
    ).toBe(0);
    expect(() => resolveQuorumConfig({ 'controller.quorum.nope': 1 } as never)).toThrow(
      /unknown quorum config/,
    );
    expect(() => resolveQuorumConfig({ 'kafkasim.raft.flush.enable': 'no' } as never)).toThrow(
      /must be a boolean/,
    );
    expect(() => resolveQuorumConfig({ 'controller.quorum.fetch.timeout.ms': 0 })).toThrow(/must be > 0/);
  });

  it('parses controller.quorum.voters as id@host:port', () => {
    expect(parseQuorumVoters('1@localhost:9092, 2@localhost:9093')).toEqual([
      { id: 1, host: 'localhost', port: 9092 },
      { id: 2, host: 'localhost', port: 9093 },
    ]);
    expect(parseQuorumVoters('')).toEqual([]);
    expect(() => parseQuorumVoters('1@localhost')).toThrow(/id@host:port/);
    expect(() => parseQuorumVoters('1@a:1,1@b:2')).toThrow(/twice/);
  });
});
