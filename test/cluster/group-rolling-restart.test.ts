// A rolling restart of a 3-member Java group on 6 partitions under each protocol (src/cluster/group-rolling-restart.ts;
// the sweep is scripts/group-rolling-restart.ts). Classic (Java's default range, eager): every leave and join stops
// the whole group for a moment. KIP-848: only the restarted member's partitions pause, until the next heartbeat
// hands them over (group.consumer.heartbeat.interval.ms, 5 s). Never a partition owned twice.
import { describe, expect, it } from 'vitest';
import { rollingRestart } from '../../src/cluster/group-rolling-restart.ts';

describe('rolling restart of every member', () => {
  const classic = rollingRestart({ protocol: 'classic', members: 3, partitions: 6 });
  const consumer = rollingRestart({ protocol: 'consumer', members: 3, partitions: 6 });

  it('no partition is ever owned by two members, under either protocol', () => {
    expect(classic.doubleOwned).toBe(0);
    expect(consumer.doubleOwned).toBe(0);
  });

  it('classic stops the whole group at the rebalances; the consumer protocol never does', () => {
    expect(classic.allPausedMs).toBeGreaterThan(0);
    expect(consumer.allPausedMs).toBe(0);
  });

  it('consumer protocol: a closed member leaves at once (epoch -1) and its partitions pause at most about one heartbeat interval', () => {
    // Not the 45 s session timeout: close() sends the leave heartbeat even with another heartbeat in flight.
    expect(consumer.longestPauseMs).toBeLessThanOrEqual(5000 + 100);
    expect(consumer.pausedPartitionMs).toBeLessThan(classic.pausedPartitionMs);
  });
});
