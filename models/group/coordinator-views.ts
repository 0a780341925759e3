// The coordinator's read-only answers about the groups it hosts: DescribeGroups (classic groups, and consumer
// groups in the classic shape kafka-consumer-groups reads), ConsumerGroupDescribe and ListGroups (with the group
// type, as GroupMetadataManager.listGroups). A group on a __consumer_offsets partition this broker does not lead
// gets NOT_COORDINATOR, one still loading COORDINATOR_LOAD_IN_PROGRESS.
import type { MetadataImage } from '../metadata/index.ts';
import {
  type ConsumerGroupDescribeResponse,
  type DescribeGroupsResponse,
  type ErrorName,
  Errors,
  type ListGroupsResponse,
} from '../protocol/index.ts';
import type { ClassicGroup } from './classic-group.ts';
import type { ConsumerGroup } from './consumer-group.ts';
import { describeConsumerGroup } from './consumer-group-describe.ts';

/** The groups of one __consumer_offsets partition as the coordinator holds them (its GroupCoordinatorShard). */
export interface HostedPartition {
  readonly loading: boolean;
  readonly groups: ReadonlyMap<string, ClassicGroup>;
  readonly consumerGroups: ReadonlyMap<string, ConsumerGroup>;
}

export interface HostedGroups {
  /** The partition a group id belongs to, undefined when this broker does not lead it. */
  lookup(groupId: string): HostedPartition | undefined;
  groups(): ClassicGroup[];
  consumerGroups(): ConsumerGroup[];
  image(): MetadataImage;
}

const code = (name: ErrorName) => Errors[name].code;

export function describeGroups(hosted: HostedGroups, groupIds: string[]): DescribeGroupsResponse {
  return {
    groups: groupIds.map((groupId) => {
      const p = hosted.lookup(groupId);
      const dead = (errorCode: number) => ({
        errorCode,
        groupId,
        groupState: 'Dead',
        protocolType: '',
        protocolData: '',
        members: [],
      });
      if (!p) return dead(code('NOT_COORDINATOR'));
      if (p.loading) return dead(code('COORDINATOR_LOAD_IN_PROGRESS'));
      return (p.groups.get(groupId) ?? p.consumerGroups.get(groupId))?.describe() ?? dead(0);
    }),
  };
}

export function consumerGroupDescribe(
  hosted: HostedGroups,
  groupIds: string[],
): ConsumerGroupDescribeResponse {
  return {
    groups: groupIds.map((groupId) => {
      const p = hosted.lookup(groupId);
      const error = !p ? 'NOT_COORDINATOR' : p.loading ? 'COORDINATOR_LOAD_IN_PROGRESS' : undefined;
      if (error)
        return {
          ...describeConsumerGroup(groupId, undefined, hosted.image()),
          errorCode: code(error),
          errorMessage: null,
        };
      return describeConsumerGroup(groupId, p!.consumerGroups.get(groupId), hosted.image());
    }),
  };
}

export function listGroups(hosted: HostedGroups): ListGroupsResponse {
  const groups: ListGroupsResponse['groups'] = hosted
    .groups()
    .filter((g) => g.state !== 'Dead')
    .map((g) => ({
      groupId: g.groupId,
      protocolType: g.protocolType ?? '',
      groupState: g.state as string,
      groupType: 'classic',
    }));
  for (const g of hosted.consumerGroups())
    groups.push({ groupId: g.groupId, protocolType: 'consumer', groupState: g.state, groupType: 'consumer' });
  return { errorCode: 0, groups };
}
