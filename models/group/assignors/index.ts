// Consumer-group partition assignors: the classic protocol's client-side assignors that the group leader
// runs (range, roundrobin, sticky, cooperative-sticky), as pure functions of the members' subscriptions,
// owned partitions and generations, and the partition counts. Results are deterministic and independent
// of input order.
// Left out: rack-aware assignment (KIP-881), the StickyAssignor's userData encoding, KIP-848 server-side
// assignors (uniform, server range).
// Facts: apache/kafka clients/src/main/java/org/apache/kafka/clients/consumer/ RangeAssignor, RoundRobinAssignor,
// AbstractStickyAssignor, CooperativeStickyAssignor; librdkafka rdkafka_range_assignor.c,
// rdkafka_roundrobin_assignor.c, rd_kafka_group_member_cmp (rdkafka_assignor.c).

export { AssignmentError, checkAssignment } from './check-assignment.ts';

import { cooperativeSticky } from './cooperative-sticky.ts';
import { range } from './range.ts';
import { roundRobin } from './round-robin.ts';
import { sticky } from './sticky.ts';

export {
  assignCooperativeSticky,
  cooperativeSticky,
  cooperativeStickyAssignor,
} from './cooperative-sticky.ts';
export { assignRange, type RangeOptions, range, rangeAssignor } from './range.ts';
export { assignRoundRobin, type RoundRobinOptions, roundRobin, roundRobinAssignor } from './round-robin.ts';
export { assignSticky, sticky, stickyAssignor } from './sticky.ts';
export type {
  AssignInput,
  Assignor,
  AssignorMember,
  MemberOrdering,
  RebalanceProtocol,
  TopicPartition,
} from './types.ts';

/** The built-in assignors by their config names; range and roundRobin use Java's member ordering. */
export const assignors = { range, roundRobin, sticky, cooperativeSticky } as const;
