// deleteTopic: kafka-topics.sh --delete.
import { toKafkaError } from '../../cluster/index.ts';
import { formatTopicCommandError } from '../../format/index.ts';
import { ref } from '../schema-kit.ts';
import { BOOTSTRAP, reportApplied, type StepDefinition, StepFailure, toolStartup } from './step.ts';

export const deleteTopic: StepDefinition<string> = {
  schema: ref('topicName'),
  syntax: '`<topic>`',
  description: 'kafka-topics.sh --delete --topic <name>.',
  check: (name, at) => at.checkTopic(at.path, name),
  describe: (name) => `$ kafka-topics.sh --bootstrap-server ${BOOTSTRAP} --delete --topic ${name}`,
  execute(name, at) {
    const { cluster, print } = at;
    toolStartup(at);
    const [r] = cluster.admin.deleteTopics([name]);
    reportApplied(at);
    const err = r ? toKafkaError(r) : undefined;
    if (err) {
      print(formatTopicCommandError(err.message));
      throw new StepFailure(`deleting topic ${name} failed: ${err.message}`);
    }
    return undefined;
  },
};
