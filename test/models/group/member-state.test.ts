// The group member's protocol states: every (state, event) pair against the classic protocol's table.
import { describe, expect, it } from 'vitest';
import {
  heartbeats,
  type MemberEvent,
  type MemberStateName,
  nextMemberState,
} from '../../../models/group/index.ts';

const STATES: MemberStateName[] = ['Unjoined', 'Preparing', 'Joining', 'Syncing', 'Stable', 'Closed'];
const EVENTS: MemberEvent['type'][] = ['PREPARE', 'JOIN_SENT', 'JOINED', 'SYNCED', 'RESET', 'CLOSE'];

// Rows: the state; columns: EVENTS in order. '.' = ignored (the state stays).
const TABLE: Record<MemberStateName, (MemberStateName | '.')[]> = {
  Unjoined: ['Preparing', '.', '.', '.', 'Unjoined', 'Closed'],
  Preparing: ['.', 'Joining', '.', '.', 'Unjoined', 'Closed'],
  Joining: ['.', 'Joining', 'Syncing', '.', 'Unjoined', 'Closed'],
  Syncing: ['.', '.', '.', 'Stable', 'Unjoined', 'Closed'],
  Stable: ['Preparing', '.', '.', '.', 'Unjoined', 'Closed'],
  Closed: ['.', '.', '.', '.', '.', '.'],
};

describe('member state', () => {
  for (const state of STATES)
    it(`${state}: each event goes where the protocol says, or is ignored`, () => {
      EVENTS.forEach((type, i) => {
        const want = TABLE[state][i] === '.' ? state : TABLE[state][i];
        expect(nextMemberState(state, { type } as MemberEvent), `${state} + ${type}`).toBe(want);
      });
    });

  it('heartbeats only while holding a generation: Preparing, Syncing, Stable (not Unjoined or Joining)', () => {
    expect(STATES.filter(heartbeats)).toEqual(['Preparing', 'Syncing', 'Stable']);
  });
});
