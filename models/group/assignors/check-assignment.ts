// What the group leader checks before it sends an assignor's result to the coordinator in SyncGroup. A user's
// assignor (`groupConsumer({ assignors })`) is plain JavaScript at run time, whatever its type says, so a wrong
// result (a member the group does not have, a partition the topic does not have, a partition given twice, a
// value of the wrong shape) stops the run with an error that names the assignor, the member and the entry,
// instead of a confusing failure later. Kafka's ConsumerCoordinator.onLeaderElected checks less (it logs topics
// assigned outside the subscriptions, and CooperativeStickyAssignor's requirements in
// validateCooperativeAssignment); a partition assigned twice is what any assignor must not do
// (ConsumerPartitionAssignor's contract: each partition to at most one member).

import { ExitCode, KafkasimError } from '../../sim/kafkasim-error.ts';
import type { AssignInput } from './types.ts';

export class AssignmentError extends KafkasimError {
  readonly code = 'INVALID_ASSIGNMENT';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'AssignmentError';
}

const show = (v: unknown) => {
  try {
    const s = JSON.stringify(v);
    if (s === undefined) return String(v);
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  } catch {
    return String(v);
  }
};

/**
 * Throws an AssignmentError unless `result` is `{ [memberId]: [{ topic, partition }, ...] }` over the input's
 * members, with every partition existing, subscribed by its member, and given to one member only. A member left
 * out gets nothing (as Kafka's coordinator gives a member the leader did not name).
 */
export function checkAssignment(assignor: string, input: AssignInput, result: unknown): void {
  const bad = (what: string) =>
    new AssignmentError(
      `assignor '${assignor}' returned a bad assignment: ${what}. assign() must return ` +
        '{ [memberId]: [{ topic, partition }, ...] } for the members it was given',
    );
  if (typeof result !== 'object' || result === null || Array.isArray(result))
    throw bad(`expected an object keyed by member id, found ${show(result)}`);
  const members = new Map(input.members.map((m) => [m.memberId, new Set(m.topics)]));
  const owner = new Map<string, string>();
  for (const [memberId, list] of Object.entries(result)) {
    const topics = members.get(memberId);
    if (topics === undefined)
      throw bad(`member '${memberId}' is not in the group (members: ${[...members.keys()].join(', ')})`);
    if (!Array.isArray(list))
      throw bad(`member '${memberId}': expected an array of partitions, found ${show(list)}`);
    list.forEach((tp: unknown, i) => {
      const where = `member '${memberId}', entry ${i}`;
      const { topic, partition } = (typeof tp === 'object' && tp !== null ? tp : {}) as Record<
        string,
        unknown
      >;
      if (typeof topic !== 'string' || !Number.isInteger(partition) || (partition as number) < 0)
        throw bad(`${where}: expected { topic: string, partition: integer >= 0 }, found ${show(tp)}`);
      const count = input.partitionsPerTopic[topic];
      if (count === undefined || (partition as number) >= count)
        throw bad(
          `${where}: ${topic}-${partition} does not exist (${topic} has ${count ?? 'no'} partitions)`,
        );
      if (!topics.has(topic))
        throw bad(`${where}: ${topic}-${partition}, but the member does not subscribe to ${topic}`);
      const key = `${topic}-${partition}`;
      const other = owner.get(key);
      if (other !== undefined) throw bad(`${key} is given to both '${other}' and '${memberId}'`);
      owner.set(key, memberId);
    });
  }
}
