// requestFault: a scripted request fault (cluster.requestFaults): an error, added latency or a dropped answer for
// the requests that match, simulated and real clients alike.
import { Errors } from '../../../models/protocol/index.ts';
import {
  type RequestFaultSpec as ClusterRequestFaultSpec,
  FAULT_APIS,
  requestFaultRuleOf,
} from '../../cluster/request-faults.ts';
import { object, ref, withDescription } from '../schema-kit.ts';
import type { StepDefinition } from './step.ts';

/** The scenario's spelling: a latency is a duration string. */
export interface RequestFaultSpec extends ClusterRequestFaultSpec {
  latency?: string;
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
    cluster.requestFaults.add(requestFaultRuleOf(f));
    return undefined;
  },
};
