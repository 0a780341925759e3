// requestFault: a scripted request fault (cluster.requestFaults): an error, added latency or a dropped answer for
// the requests that match, simulated and real clients alike.
import type { ErrorName } from '../../../models/protocol/index.ts';
import { Errors } from '../../../models/protocol/index.ts';
import { parseDuration } from '../../../models/sim/index.ts';
import type { RequestFaultRule } from '../../cluster/index.ts';
import { FAULT_APIS } from '../../cluster/request-faults.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { StepDefinition } from './step.ts';

export interface RequestFaultSpec {
  api: string;
  topic?: string;
  partition?: number;
  client?: string;
  broker?: number;
  error?: string;
  latency?: string;
  dropResponse?: boolean;
  count?: number;
}

export const requestFault: StepDefinition<RequestFaultSpec> = {
  schema: object(
    {
      api: { type: 'string', enum: [...FAULT_APIS], description: 'The request type (Kafka API name).' },
      topic: ref('topicName'),
      partition: { type: 'integer', minimum: 0 },
      client: { type: 'string', minLength: 1, description: 'A client name or a real client.id.' },
      broker: { type: 'integer', minimum: 0, description: 'Only requests to this broker.' },
      error: {
        type: 'string',
        enum: Object.keys(Errors).filter((e) => e !== 'NONE'),
        description: 'Answer with this Kafka error (the request is not applied).',
      },
      latency: withDescription(ref('duration'), 'Added before the answer leaves.'),
      dropResponse: { type: 'boolean', description: 'Serve the request but never answer it.' },
      count: {
        type: 'integer',
        minimum: 1,
        description: 'Requests it applies to (default: the rest of the run).',
      },
    },
    ['api'],
  ),
  syntax: '`{api, topic?, partition?, client?, broker?, error? | latency? | dropResponse?, count?}`',
  description:
    'A scripted request fault for simulated and real clients alike: e.g. `{api: Produce, topic: orders, partition: 0, error: NOT_LEADER_OR_FOLLOWER, count: 3}`.',
  describe(f) {
    const where = [
      f.topic,
      f.partition !== undefined ? `partition ${f.partition}` : undefined,
      f.client,
      f.broker !== undefined ? `broker ${f.broker}` : undefined,
    ]
      .filter((x) => x !== undefined)
      .join(', ');
    const what = [
      f.error,
      f.latency !== undefined ? `+${f.latency}` : undefined,
      f.dropResponse ? 'no answer' : undefined,
    ]
      .filter((x) => x !== undefined)
      .join(', ');
    return `# request fault: ${f.api}${where ? ` (${where})` : ''} -> ${what}${f.count !== undefined ? `, ${f.count} time${f.count === 1 ? '' : 's'}` : ''}`;
  },
  execute(f, { cluster }) {
    cluster.requestFaults.add({
      api: f.api as RequestFaultRule['api'],
      ...(f.topic !== undefined ? { topic: f.topic } : {}),
      ...(f.partition !== undefined ? { partition: f.partition } : {}),
      ...(f.client !== undefined ? { client: f.client } : {}),
      ...(f.broker !== undefined ? { broker: f.broker } : {}),
      ...(f.error !== undefined ? { error: f.error as ErrorName } : {}),
      ...(f.latency !== undefined ? { latencyMs: parseDuration(f.latency) } : {}),
      ...(f.dropResponse ? { dropResponse: true } : {}),
      ...(f.count !== undefined ? { count: f.count } : {}),
    });
    return undefined;
  },
};
