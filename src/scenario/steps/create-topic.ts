// createTopic: kafka-topics.sh --create.

import { formatCreatedTopic, formatTopicCommandError } from '../../format/index.ts';
import { ref } from '../schema-kit.ts';
import { createTopic as create } from '../setup.ts';
import type { TopicSpec } from '../types.ts';
import { BOOTSTRAP, reportApplied, type StepDefinition, StepFailure, toolStartup } from './step.ts';

export const createTopic: StepDefinition<TopicSpec> = {
  schema: ref('topic'),
  syntax: '`{name, partitions?, replicationFactor?, configs?, assignments?}`',
  description: 'kafka-topics.sh --create: prints `Created topic <name>.` (or the tool’s error line).',
  check: (t, at) => at.checkTopicSpec(t, at.path),
  describe(t) {
    const args = t.assignments
      ? ` --replica-assignment ${t.assignments.map((r) => r.join(':')).join(',')}`
      : `${t.partitions !== undefined ? ` --partitions ${t.partitions}` : ''}${t.replicationFactor !== undefined ? ` --replication-factor ${t.replicationFactor}` : ''}`;
    const configs = Object.entries(t.configs ?? {})
      .map(([k, v]) => ` --config ${k}=${v}`)
      .join('');
    return `$ kafka-topics.sh --bootstrap-server ${BOOTSTRAP} --create --topic ${t.name}${args}${configs}`;
  },
  execute(t, at) {
    const { cluster, print } = at;
    toolStartup(at);
    try {
      create(cluster, t);
    } catch (e) {
      print(formatTopicCommandError((e as Error).message));
      throw new StepFailure(`creating topic ${t.name} failed: ${(e as Error).message}`);
    } finally {
      reportApplied(at);
    }
    print(formatCreatedTopic(t.name));
    return undefined;
  },
};
