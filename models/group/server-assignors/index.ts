// The server-side assignors of the consumer group protocol (KIP-848), by the name members ask for in
// `group.remote.assignor` (Kafka's group.consumer.assignors: uniform first, the default, then range).
export {
  assignmentEquals,
  assignmentOf,
  hasPartition,
  partitionCount,
  partitionsOf,
  unionAssignment,
} from './assignment.ts';
export { serverRangeAssignor } from './range.ts';
export {
  EMPTY_ASSIGNMENT,
  type GroupSpec,
  type PartitionAssignment,
  type ServerAssignor,
  type ServerAssignorMember,
} from './types.ts';
export { uniformAssignor } from './uniform.ts';

import { serverRangeAssignor } from './range.ts';
import type { ServerAssignor } from './types.ts';
import { uniformAssignor } from './uniform.ts';

export const serverAssignors: Readonly<Record<string, ServerAssignor>> = Object.freeze({
  uniform: uniformAssignor,
  range: serverRangeAssignor,
});
