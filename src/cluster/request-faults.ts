// Scripted request faults, the control that users of Kafka test doubles ask for most (librdkafka's mock cluster
// `rd_kafka_mock_push_request_errors`, franz-go kfake's control functions): a rule matches requests by API and
// optionally topic, partition, client and broker, and answers them with a Kafka error, adds latency to the
// answer, or drops the answer, `count` times or until removed. Rules act where requests reach their target in
// the simulated network, so simulated clients and real ones on the Kafka listener meet them alike. For the
// partition-level APIs (Produce, Fetch, ListOffsets, OffsetCommit) only the matching partitions get the error:
// the rest of the request is served as usual. Every application is a trace event (`fault.request`).
import {
  brokerNodeId,
  type ErrorName,
  Errors,
  type FetchPartitionResponse,
  type ProducePartitionResponse,
} from '../../models/protocol/index.ts';
import {
  type NodeId,
  parseDuration,
  type RequestInterception,
  type Simulation,
} from '../../models/sim/index.ts';

/** The request types a rule can name (the model's names, which are Kafka's API names). */
export const FAULT_APIS = [
  'Produce',
  'Fetch',
  'ListOffsets',
  'Metadata',
  'OffsetCommit',
  'OffsetFetch',
  'FindCoordinator',
  'JoinGroup',
  'SyncGroup',
  'Heartbeat',
  'LeaveGroup',
  'DescribeGroups',
  'ListGroups',
  'DescribeConfigs',
] as const;
export type FaultApi = (typeof FAULT_APIS)[number];

/** APIs whose error answer a rule can build (Metadata, DescribeGroups... take latency and drops only). */
const ERROR_APIS: ReadonlySet<string> = new Set([
  'Produce',
  'Fetch',
  'ListOffsets',
  'OffsetCommit',
  'OffsetFetch',
  'FindCoordinator',
  'JoinGroup',
  'SyncGroup',
  'Heartbeat',
  'LeaveGroup',
]);

export interface RequestFaultRule {
  api: FaultApi;
  topic?: string;
  partition?: number;
  /** A simulated client's name, or a real client's client.id (or its connection node, `wire-<n>`). */
  client?: string;
  /** Only requests to this broker. */
  broker?: number;
  /** Answer with this error instead of serving (the request is not applied). */
  error?: ErrorName;
  /** Milliseconds added before the answer leaves the broker. */
  latencyMs?: number;
  /** Serve the request but never answer it (the client's request times out). */
  dropResponse?: boolean;
  /** How many requests the rule applies to; absent = until removed. */
  count?: number;
}

/** A rule as the scenario language and the HTTP API spell it (names checked by their schemas; latency a duration). */
export interface RequestFaultSpec {
  api: string;
  topic?: string;
  partition?: number;
  client?: string;
  broker?: number;
  error?: string;
  latency?: string | number;
  dropResponse?: boolean;
  count?: number;
}

/** The rule a spec stands for; a latency that is no duration throws parseDuration's error. */
export function requestFaultRuleOf(spec: RequestFaultSpec): RequestFaultRule {
  return {
    api: spec.api as FaultApi,
    ...(spec.topic !== undefined ? { topic: spec.topic } : {}),
    ...(spec.partition !== undefined ? { partition: spec.partition } : {}),
    ...(spec.client !== undefined ? { client: spec.client } : {}),
    ...(spec.broker !== undefined ? { broker: spec.broker } : {}),
    ...(spec.error !== undefined ? { error: spec.error as ErrorName } : {}),
    ...(spec.latency !== undefined ? { latencyMs: parseDuration(spec.latency) } : {}),
    ...(spec.dropResponse ? { dropResponse: true } : {}),
    ...(spec.count !== undefined ? { count: spec.count } : {}),
  };
}

export interface ActiveRequestFault {
  id: number;
  rule: RequestFaultRule;
  /** Requests it applied to so far. */
  applied: number;
}

type Entry = { topic: string; partition: number };

/** The partition entries a partition-level request carries (and the name of that list in the payload). */
function entriesOf(
  api: string,
  payload: Record<string, unknown>,
): { key: string; entries: Entry[] } | undefined {
  if (api === 'Produce' || api === 'Fetch' || api === 'ListOffsets')
    return { key: 'partitions', entries: payload.partitions as Entry[] };
  if (api === 'OffsetCommit') return { key: 'offsets', entries: payload.offsets as Entry[] };
  return undefined;
}

function partitionError(api: string, e: Entry, code: number): unknown {
  switch (api) {
    case 'Produce':
      return {
        topic: e.topic,
        partition: e.partition,
        errorCode: code,
        baseOffset: -1,
      } satisfies ProducePartitionResponse;
    case 'Fetch':
      return {
        topic: e.topic,
        partition: e.partition,
        errorCode: code,
        highWatermark: -1,
        logStartOffset: -1,
        batches: [],
      } satisfies FetchPartitionResponse;
    case 'ListOffsets':
      return { topic: e.topic, partition: e.partition, errorCode: code, offset: -1, leaderEpoch: -1 };
    default:
      return { topic: e.topic, partition: e.partition, errorCode: code };
  }
}

/** The whole answer for an error on a request-level API, shaped as the model's response. */
function requestError(api: string, payload: Record<string, unknown>, code: number): unknown {
  switch (api) {
    case 'JoinGroup':
      return {
        errorCode: code,
        generationId: -1,
        protocolName: null,
        leader: '',
        memberId: payload.memberId,
        members: [],
      };
    case 'SyncGroup':
      return { errorCode: code, protocolName: null, assignment: [] };
    case 'LeaveGroup':
      return { errorCode: code, members: [] };
    case 'OffsetFetch':
      return { errorCode: code, partitions: [] };
    case 'FindCoordinator':
      return { errorCode: code, nodeId: -1, host: '', port: -1 };
    default:
      return { errorCode: code };
  }
}

export class RequestFaults {
  private rules: ActiveRequestFault[] = [];
  private nextId = 1;
  /** Connection node -> client.id, for real clients (the wire listener tells). */
  private readonly aliases = new Map<NodeId, string>();

  constructor(private readonly sim: Simulation) {}

  /** Adds a rule; returns it with its id. Throws a RangeError for a rule that cannot apply. */
  add(rule: RequestFaultRule): ActiveRequestFault {
    if (!(FAULT_APIS as readonly string[]).includes(rule.api))
      throw new RangeError(`api must be one of ${FAULT_APIS.join(', ')}, got '${rule.api}'`);
    const effects = [
      rule.error !== undefined,
      rule.latencyMs !== undefined,
      rule.dropResponse === true,
    ].filter(Boolean).length;
    if (effects === 0) throw new RangeError('a request fault needs error, latency or dropResponse');
    if (rule.error !== undefined) {
      if (!(rule.error in Errors) || rule.error === 'NONE')
        throw new RangeError(
          `error must be a Kafka error name such as NOT_LEADER_OR_FOLLOWER, got '${rule.error}'`,
        );
      if (!ERROR_APIS.has(rule.api))
        throw new RangeError(
          `an error can be injected into ${[...ERROR_APIS].join(', ')}; ${rule.api} takes latency or dropResponse`,
        );
      if (rule.dropResponse) throw new RangeError('error and dropResponse exclude each other');
    }
    if (rule.latencyMs !== undefined && !(rule.latencyMs >= 0 && rule.latencyMs <= 3_600_000))
      throw new RangeError(`latency must be from 0 to 1h, got ${rule.latencyMs} ms`);
    if (rule.count !== undefined && !(Number.isInteger(rule.count) && rule.count >= 1))
      throw new RangeError(`count must be a whole number of at least 1, got ${rule.count}`);
    if ((rule.topic !== undefined || rule.partition !== undefined) && !entriesOfApi(rule.api))
      throw new RangeError(
        `${rule.api} carries no partitions: topic and partition match Produce, Fetch, ListOffsets and OffsetCommit`,
      );
    const active: ActiveRequestFault = { id: this.nextId++, rule: { ...rule }, applied: 0 };
    this.rules.push(active);
    this.sim.network.setRequestInterceptor(this.intercept);
    this.sim.trace.emit('fault.request-rule', undefined, { id: active.id, ...rule });
    return active;
  }

  remove(id: number): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    this.changed();
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
    this.changed();
  }

  list(): ActiveRequestFault[] {
    return this.rules.map((r) => ({ ...r, rule: { ...r.rule } }));
  }

  /** Names a connection node with its client.id (real clients), so `client` rules match it. */
  alias(node: NodeId, clientId: string): void {
    this.aliases.set(node, clientId);
  }

  private changed(): void {
    if (this.rules.length === 0) this.sim.network.setRequestInterceptor(undefined);
  }

  private readonly intercept = (
    from: NodeId,
    to: NodeId,
    payload: unknown,
  ): RequestInterception | undefined => {
    const p = payload as Record<string, unknown> & { type?: string };
    const api = p?.type;
    if (typeof api !== 'string') return undefined;
    for (const active of this.rules) {
      const rule = active.rule;
      if (rule.api !== api) continue;
      if (rule.broker !== undefined && brokerNodeId(rule.broker) !== to) continue;
      if (
        rule.client !== undefined &&
        rule.client !== from &&
        rule.client !== this.aliases.get(from) &&
        rule.client !== p.clientId
      )
        continue;
      const listed = entriesOf(api, p);
      const matched =
        listed && (rule.topic !== undefined || rule.partition !== undefined)
          ? listed.entries.filter(
              (e) =>
                (rule.topic === undefined || e.topic === rule.topic) &&
                (rule.partition === undefined || e.partition === rule.partition),
            )
          : listed?.entries;
      if (listed && matched!.length === 0) continue;
      const x = this.effect(active, api, p, listed, matched);
      active.applied++;
      if (rule.count !== undefined && active.applied >= rule.count) {
        this.rules = this.rules.filter((r) => r !== active);
        this.changed();
      }
      this.sim.trace.emit('fault.request', from, {
        id: active.id,
        api,
        to,
        ...(rule.error ? { error: rule.error } : {}),
        ...(rule.latencyMs !== undefined ? { latencyMs: rule.latencyMs } : {}),
        ...(rule.dropResponse ? { dropResponse: true } : {}),
        ...(matched ? { partitions: matched.map((e) => `${e.topic}-${e.partition}`) } : {}),
      });
      return x;
    }
    return undefined;
  };

  private effect(
    active: ActiveRequestFault,
    api: string,
    p: Record<string, unknown>,
    listed: { key: string; entries: Entry[] } | undefined,
    matched: Entry[] | undefined,
  ): RequestInterception {
    const rule = active.rule;
    const delay = rule.latencyMs !== undefined ? { delayMs: rule.latencyMs } : {};
    if (rule.error === undefined) return { ...delay, ...(rule.dropResponse ? { dropResponse: true } : {}) };
    const code = Errors[rule.error].code;
    if (!listed) return { ...delay, reply: requestError(api, p, code) };
    const hit = new Set(matched);
    const errors = matched!.map((e) => partitionError(api, e, code));
    const rest = listed.entries.filter((e) => !hit.has(e));
    if (rest.length === 0) {
      const base = api === 'Produce' ? { correlationId: p.correlationId } : {};
      return { ...delay, reply: { ...base, partitions: errors } };
    }
    return {
      ...delay,
      payload: { ...p, [listed.key]: rest },
      transform: (response) => {
        const r = response as Record<string, unknown>;
        return { ...r, partitions: [...((r.partitions as unknown[]) ?? []), ...errors] };
      },
    };
  }
}

function entriesOfApi(api: string): boolean {
  return api === 'Produce' || api === 'Fetch' || api === 'ListOffsets' || api === 'OffsetCommit';
}
