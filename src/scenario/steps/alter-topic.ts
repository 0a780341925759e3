// alterTopic: kafka-topics.sh --alter --partitions N (CreatePartitions).
import { toKafkaError } from '../../cluster/index.ts';
import { formatTopicCommandError } from '../../format/index.ts';
import { object, ref } from '../schema-kit.ts';
import { BOOTSTRAP, reportApplied, type StepDefinition, StepFailure, toolStartup } from './step.ts';

export const alterTopic: StepDefinition<{ name: string; partitions: number }> = {
  schema: object({ name: ref('topicName'), partitions: { type: 'integer', minimum: 1 } }, [
    'name',
    'partitions',
  ]),
  syntax: '`{name, partitions}`',
  description: 'kafka-topics.sh --alter --partitions N (CreatePartitions).',
  check: (v, at) => at.checkTopic([...at.path, 'name'], v.name),
  describe: (v) =>
    `$ kafka-topics.sh --bootstrap-server ${BOOTSTRAP} --alter --topic ${v.name} --partitions ${v.partitions}`,
  execute({ name, partitions }, at) {
    const { cluster, print } = at;
    toolStartup(at);
    const err = toKafkaError(cluster.admin.createPartitions(name, partitions));
    reportApplied(at);
    if (err) {
      print(formatTopicCommandError(err.message));
      throw new StepFailure(`altering topic ${name} failed: ${err.message}`);
    }
    return undefined;
  },
};
