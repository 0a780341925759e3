// The heartbeat thread of a classic-protocol member (Java's AbstractCoordinator.HeartbeatThread, librdkafka's
// rd_kafka_cgrp_heartbeat on its main thread): a Heartbeat every heartbeat.interval.ms while the member's state
// heartbeats, independent of the application's poll loop; REBALANCE_IN_PROGRESS is how a member that is not the
// one rejoining learns of a rebalance.

import { heartbeats } from '../group/index.ts';
import { brokerNodeId, type ErrorName, errorByCode, type HeartbeatResponse } from '../protocol/index.ts';
import type { NodeId, Periodic, RequestOutcome } from '../sim/index.ts';
import type { ConsumerConfig } from './config.ts';
import type { GroupConsumerConfig } from './group-consumer-config.ts';
import type { MemberIdentity } from './member-identity.ts';

/** What the heartbeat needs from its member. */
export interface MemberHeartbeatHost {
  readonly groupId: string;
  readonly config: ConsumerConfig;
  readonly groupConfig: GroupConsumerConfig;
  readonly member: MemberIdentity;
  every(intervalMs: number, fn: () => void, label: string): Periodic;
  request<R>(to: NodeId, payload: unknown, cb: (o: RequestOutcome<R>) => void, timeoutMs: number): void;
  countError(code: number): void;
  findCoordinator(): void;
  markCoordinatorUnknown(why: string): void;
  requestRejoin(reason: string): void;
  onGroupError(name: ErrorName, generationAtRequest: number, what: string): void;
}

export class MemberHeartbeat {
  private inFlight = false;

  constructor(private readonly host: MemberHeartbeatHost) {}

  /** A restart: no heartbeat is in flight. */
  reset(): void {
    this.inFlight = false;
  }

  /** Starts the thread (on the client's start): a heartbeat every heartbeat.interval.ms while the state heartbeats. */
  start(): void {
    this.host.every(
      this.host.groupConfig['heartbeat.interval.ms'],
      () => {
        if (heartbeats(this.host.member.memberState)) this.send();
      },
      'member.heartbeat',
    );
  }

  private send(): void {
    const host = this.host;
    const member = host.member;
    if (this.inFlight || member.generationId < 0 || member.memberId === '') return;
    if (member.coordinatorId === undefined) return host.findCoordinator();
    this.inFlight = true;
    const generation = member.generationId;
    host.request<HeartbeatResponse>(
      brokerNodeId(member.coordinatorId),
      {
        type: 'Heartbeat',
        groupId: host.groupId,
        generationId: generation,
        memberId: member.memberId,
        groupInstanceId: host.groupConfig['group.instance.id'],
      },
      (o) => {
        this.inFlight = false;
        if (!o.ok) return host.markCoordinatorUnknown(`Heartbeat ${o.error}`);
        const name = errorByCode(o.response.errorCode).name;
        if (name === 'NONE') return;
        host.countError(o.response.errorCode);
        if (name === 'REBALANCE_IN_PROGRESS') {
          if (member.memberState === 'Stable') host.requestRejoin('group is already rebalancing');
          return;
        }
        host.onGroupError(name, generation, 'Heartbeat');
      },
      host.config['request.timeout.ms'],
    );
  }
}
