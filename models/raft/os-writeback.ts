/**
 * The page cache's writeback of an unflushed Raft log, for runs with `kafkasim.raft.flush.enable` false (Kafka
 * before KAFKA-10533, when nothing flushed on the append path). Linux's flusher wakes every
 * `vm.dirty_writeback_centisecs` and writes back what has been dirty for `vm.dirty_expire_centisecs`
 * (https://docs.kernel.org/admin-guide/sysctl/vm.html): each wake notes the log end, and a later wake writes
 * back up to the end noted at least `expire` ms before.
 */

import type { SimNode } from '../sim/index.ts';
import type { QuorumConfig } from './config.ts';
import type { RaftLog } from './raft-log.ts';

/** Starts the flusher on `host` (its timer ends with the node); `log` reads the log from the node's disk. */
export function startOsWriteback(host: SimNode, config: QuorumConfig, log: () => RaftLog<unknown>): void {
  const expire = config['kafkasim.raft.os.dirty.expire.ms'];
  const noted: { t: number; end: number }[] = [];
  host.every(
    config['kafkasim.raft.os.writeback.ms'],
    () => {
      const now = host.sim.now;
      noted.push({ t: now, end: log().endOffset });
      let upTo = -1;
      while (noted.length > 0 && noted[0]!.t <= now - expire) upTo = noted.shift()!.end;
      if (upTo >= 0) log().flushTo(upTo);
    },
    'raft.writeback',
  );
}
