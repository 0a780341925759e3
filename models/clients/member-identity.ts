// Who a group member is right now, as the requests it sends name it: its state, member id, generation and
// coordinator. The member's parts (heartbeat, offsets) read it at the moment they send.
import type { MemberStateName } from '../group/index.ts';

export interface MemberIdentity {
  readonly memberState: MemberStateName;
  readonly memberId: string;
  readonly generationId: number;
  readonly coordinatorId: number | undefined;
}
