// A user's assignor that returns a bad assignment stops the run with an error naming the assignor, the member and
// the entry (models/group/assignors/check-assignment.ts); a good one, and every built-in, passes the check. The
// wrong shapes are also type errors: the `@ts-expect-error` lines fail `npm run typecheck` if the type ever
// stops refusing them.
import { describe, expect, it } from 'vitest';
import {
  type AssignInput,
  AssignmentError,
  type Assignor,
  assignors,
  checkAssignment,
} from '../../../../models/group/assignors/index.ts';
import { SimulationError } from '../../../../models/sim/index.ts';
import { createCluster } from '../../../../src/cluster/index.ts';

const input: AssignInput = {
  partitionsPerTopic: { events: 2, audit: 1 },
  members: [
    { memberId: 'a', topics: ['events'] },
    { memberId: 'b', topics: ['events', 'audit'] },
  ],
};

const message = (result: unknown) => {
  try {
    checkAssignment('mine', input, result);
  } catch (e) {
    expect(e).toBeInstanceOf(AssignmentError);
    return (e as Error).message;
  }
  return 'accepted';
};

describe('checkAssignment', () => {
  it('accepts a good assignment, a member left out, and what every built-in assignor returns', () => {
    expect(message({ a: [{ topic: 'events', partition: 0 }], b: [{ topic: 'events', partition: 1 }] })).toBe(
      'accepted',
    );
    expect(message({ b: [{ topic: 'audit', partition: 0 }] })).toBe('accepted');
    for (const a of Object.values(assignors)) expect(message(a.assign(input)), a.name).toBe('accepted');
  });

  it.each([
    [null, 'expected an object keyed by member id, found null'],
    [[{ topic: 'events', partition: 0 }], 'expected an object keyed by member id'],
    [{ c: [] }, "member 'c' is not in the group (members: a, b)"],
    [{ a: { topic: 'events', partition: 0 } }, "member 'a': expected an array of partitions"],
    [
      { a: ['events-0'] },
      `member 'a', entry 0: expected { topic: string, partition: integer >= 0 }, found "events-0"`,
    ],
    [
      { a: [{ topic: 'events', partition: '1' }] },
      "member 'a', entry 0: expected { topic: string, partition",
    ],
    [{ a: [{ topic: 'events', partition: 2 }] }, 'events-2 does not exist (events has 2 partitions)'],
    [{ a: [{ topic: 'nope', partition: 0 }] }, 'nope-0 does not exist (nope has no partitions)'],
    [{ a: [{ topic: 'audit', partition: 0 }] }, 'audit-0, but the member does not subscribe to audit'],
    [
      { a: [{ topic: 'events', partition: 1 }], b: [{ topic: 'events', partition: 1 }] },
      "events-1 is given to both 'a' and 'b'",
    ],
  ])('refuses %j: %s', (result, why) => {
    const text = message(result);
    expect(text).toContain("assignor 'mine' returned a bad assignment: ");
    expect(text).toContain(why);
  });
});

describe('a custom assignor in a running group', () => {
  it('a bad result stops the run with the assignor, the member and the seed named', () => {
    const typo: Assignor = {
      name: 'typo',
      // A member id that is not the group's (a common slip: the client id instead of the member id).
      assign: ({ partitionsPerTopic }) => ({
        'consumer-app-1': Array.from({ length: partitionsPerTopic.events ?? 0 }, (_, p) => ({
          topic: 'events',
          partition: p,
        })),
      }),
    };
    const c = createCluster({ seed: 5, brokers: 1, storage: 'shared' });
    c.admin.createTopic({ name: 'events', partitions: 2 });
    c.groupConsumer('one', { groupId: 'app', topics: ['events'], assignors: [typo] });
    let error: unknown;
    try {
      c.runFor('30s');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    expect((error as Error).cause).toBeInstanceOf(AssignmentError);
    expect((error as Error).message).toMatch(
      /^assignor 'typo' returned a bad assignment: member 'consumer-app-1' is not in the group \(members: .+\)\. .*replay with seed 5$/,
    );
  });

  it('wrong shapes are type errors too', () => {
    // @ts-expect-error partition must be a number
    const w1: Assignor = { name: 'w1', assign: () => ({ a: [{ topic: 't', partition: '0' }] }) };
    // @ts-expect-error the result is keyed by member id: a list of partitions is not a record of lists
    const w2: Assignor = { name: 'w2', assign: () => ({ a: { topic: 't', partition: 0 } }) };
    // @ts-expect-error the input has no `subscriptions`
    const w3: Assignor = { name: 'w3', assign: ({ subscriptions }) => subscriptions };
    expect([w1, w2, w3]).toHaveLength(3);
  });
});
