// The consumer group protocol (KIP-848, `group.protocol=consumer`) on the wire: ConsumerGroupHeartbeat (68) and
// ConsumerGroupDescribe (69), onto the model's group coordinator, which runs the protocol itself
// (models/group/consumer-group.ts). The wire and the model name partitions the same way (topic id, partitions), so
// the handlers only add what the connection knows (client id and host) and keep Kafka's field names.
import type {
  ConsumerGroupDescribeResponse,
  ConsumerGroupHeartbeatResponse,
  ConsumerGroupHeartbeatTopicPartitions,
} from '../../../models/protocol/index.ts';
import type { ConsumerGroupDescribeRequestData } from '../generated/consumer-group-describe-request.ts';
import type { ConsumerGroupHeartbeatRequestData } from '../generated/consumer-group-heartbeat-request.ts';
import { call, type HandlerContext } from './context.ts';

/** What the coordinator sees a wire client connect from (as for JoinGroup's clientHost). */
const CLIENT_HOST = '/127.0.0.1';

const copyPartitions = (tps: readonly ConsumerGroupHeartbeatTopicPartitions[]) =>
  tps.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions] }));

export function handleConsumerGroupHeartbeat(ctx: HandlerContext, m: unknown): void {
  const req = m as ConsumerGroupHeartbeatRequestData;
  call<ConsumerGroupHeartbeatResponse>(
    ctx,
    {
      type: 'ConsumerGroupHeartbeat',
      groupId: req.groupId,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: req.subscribedTopicNames,
      subscribedTopicRegex: ctx.version >= 1 ? req.subscribedTopicRegex : null,
      serverAssignor: req.serverAssignor,
      topicPartitions: req.topicPartitions === null ? null : copyPartitions(req.topicPartitions),
      clientId: ctx.clientId,
      clientHost: CLIENT_HOST,
    },
    (res) =>
      ctx.respond({
        throttleTimeMs: res.throttleTimeMs,
        errorCode: res.errorCode,
        errorMessage: res.errorMessage,
        memberId: res.memberId,
        memberEpoch: res.memberEpoch,
        heartbeatIntervalMs: res.heartbeatIntervalMs,
        assignment:
          res.assignment === null
            ? null
            : { topicPartitions: copyPartitions(res.assignment.topicPartitions) },
      }),
  );
}

export function handleConsumerGroupDescribe(ctx: HandlerContext, m: unknown): void {
  const req = m as ConsumerGroupDescribeRequestData;
  call<ConsumerGroupDescribeResponse>(ctx, { type: 'ConsumerGroupDescribe', groupIds: req.groupIds }, (res) =>
    ctx.respond({
      throttleTimeMs: 0,
      groups: res.groups.map((g) => ({
        ...g,
        // No ACLs are modelled: the field says "not provided" (-2^31), as DescribeGroups does here.
        authorizedOperations: -2147483648,
        members: g.members.map((x) => ({
          ...x,
          assignment: { topicPartitions: x.assignment },
          targetAssignment: { topicPartitions: x.targetAssignment },
        })),
      })),
    }),
  );
}
