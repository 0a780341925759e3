// `kafkasim reassign-partitions`: kafka-reassign-partitions.sh against a running `kafkasim serve`. --execute
// and --verify read Kafka's reassignment JSON file and print exactly what the tool prints (src/format); --list
// shows the reassignments in progress. Facts: apache/kafka ReassignPartitionsCommand (main's error printing,
// executeAssignment, verifyAssignment, findPartitionReassignmentStates, clearAllThrottles, curReassignmentsToString,
// verifyBrokerIds, getReplicaAssignmentForPartitions).
import { readFileSync } from 'node:fs';
import { ApiConnectionError, ApiRequestError, clientFor } from '../api/client.ts';
import { intOption } from '../api/tool-args.ts';
import {
  compareTopicPartitions,
  FormatInputError,
  formatExecute,
  formatVerify,
  type PartitionReassignmentStatus,
  parseReassignmentJson,
  type ReassignmentEntry,
  type TopicDescribeView,
  tpString,
} from '../format/index.ts';
import { type CliIO, UsageError } from './io.ts';
import { toolCommandArgs } from './tool-command.ts';

export const REASSIGN_USAGE = `Usage: kafkasim reassign-partitions --bootstrap-server http://HOST:PORT <action> [options]

kafka-reassign-partitions.sh against a running \`kafkasim serve\`. One action:
  --execute   start the reassignment in --reassignment-json-file ([--additional], [--throttle B/s])
  --verify    report the status of the reassignment in --reassignment-json-file ([--preserve-throttles])
  --list      list the reassignments in progress
Options:
  --bootstrap-server URL          the server, e.g. http://127.0.0.1:8082
  --reassignment-json-file FILE   {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}
  --help                          show this help
Not supported: --generate, --cancel (kafkasim).
`;

const SPEC = {
  'bootstrap-server': 'value',
  'reassignment-json-file': 'value',
  execute: 'flag',
  verify: 'flag',
  list: 'flag',
  generate: 'flag',
  cancel: 'flag',
  additional: 'flag',
  throttle: 'value',
  'replica-alter-log-dirs-throttle': 'value',
  'preserve-throttles': 'flag',
  timeout: 'value',
  'command-config': 'value',
  'disable-rack-aware': 'flag',
  help: 'flag',
} as const;

/** ReassignPartitionsCommand.CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE. */
export const CANNOT_EXECUTE_BECAUSE_OF_EXISTING =
  'Cannot execute because there is an existing partition assignment.  Use --additional to override this and ' +
  'create a new partition assignment in addition to the existing one. The --additional flag can also be used ' +
  'to change the throttle by resubmitting the current reassignment.';

interface Reassignment {
  topic_name: string;
  partition_id: number;
  adding_replicas: number[];
  removing_replicas: number[];
}

export async function reassignPartitionsCommand(argv: string[], io: CliIO): Promise<number> {
  const args = toolCommandArgs(argv, SPEC, REASSIGN_USAGE, io);
  if (!args) return 0;
  const actions = (['execute', 'verify', 'list', 'generate', 'cancel'] as const).filter((a) => args.has(a));
  if (actions.length !== 1)
    throw new UsageError(
      'Command must include exactly one action: --execute, --verify, --list (kafkasim supports these)',
    );
  const action = actions[0]!;
  if (action === 'generate' || action === 'cancel')
    throw new UsageError(`--${action} is not supported by kafkasim reassign-partitions`);
  const bootstrap = args.value('bootstrap-server');
  if (bootstrap === undefined) throw new UsageError('Missing required argument "[bootstrap-server]"');
  const file = args.value('reassignment-json-file');
  if (action !== 'list' && file === undefined)
    throw new UsageError('Missing required argument "[reassignment-json-file]"');
  let throttle: number | undefined;
  let logDirThrottle: number | undefined;
  try {
    throttle = intOption(args.value('throttle'), 'throttle', -1, Number.MAX_SAFE_INTEGER);
    logDirThrottle = intOption(
      args.value('replica-alter-log-dirs-throttle'),
      'replica-alter-log-dirs-throttle',
      -1,
      Number.MAX_SAFE_INTEGER,
    );
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  let client: ReturnType<typeof clientFor>;
  try {
    client = clientFor(bootstrap, io.env, 'kafka-reassign-partitions');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }

  // The tool prints a TerseException's message alone and any other exception as "Error: <message>" (then its
  // stack trace, left out here); both exit 1.
  const error = (message: string) => {
    io.stdout(`Error: ${message}\n`);
    return 1;
  };
  let entries: readonly ReassignmentEntry[] = [];
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return error(
        code === 'ENOENT' ? `${file} (No such file or directory)` : `${file}: ${(e as Error).message}`,
      );
    }
    try {
      entries = parseReassignmentJson(text).partitions;
    } catch (e) {
      if (e instanceof FormatInputError) return error(e.message);
      throw e;
    }
  }

  try {
    const path = await client.clusterPath();
    const ongoing = async () =>
      (await client.call<{ data: Reassignment[] }>('GET', `${path}/topics/-/partitions/-/reassignment`)).data;
    const views = async () => {
      const list = (await client.call<{ topics: TopicDescribeView[] }>('GET', '/sim/views/topics')).topics;
      return new Map(list.map((t) => [t.name, t]));
    };

    if (action === 'list') {
      const current = await ongoing();
      const topics = await views();
      const lines = current
        .map((r) => ({ topic: r.topic_name, partition: r.partition_id, r }))
        .sort(compareTopicPartitions)
        .map(({ topic, partition, r }) => {
          const replicas = topics.get(topic)?.partitions[partition]?.replicas ?? [];
          const adding = r.adding_replicas.length > 0 ? ` adding: ${r.adding_replicas.join(',')}.` : '';
          const removing =
            r.removing_replicas.length > 0 ? ` removing: ${r.removing_replicas.join(',')}.` : '';
          return `${topic}-${partition}: replicas: ${replicas.join(',')}.${adding}${removing}`;
        });
      io.stdout(
        lines.length === 0
          ? 'No partition reassignments found.\n'
          : `Current partition reassignments:\n${lines.join('\n')}\n`,
      );
      return 0;
    }

    if (action === 'verify') {
      const current = await ongoing();
      const moving = new Set(current.map((r) => `${r.topic_name}-${r.partition_id}`));
      const topics = await views();
      const statuses: PartitionReassignmentStatus[] = entries.map((e) => ({
        topic: e.topic,
        partition: e.partition,
        currentReplicas: [...(topics.get(e.topic)?.partitions[e.partition]?.replicas ?? [])],
        targetReplicas: [...e.replicas],
        done: !moving.has(tpString(e)),
      }));
      let throttles: { brokers: number[]; topics: string[] } | null = null;
      // verifyAssignment clears throttles once nothing at all is moving (not only the file's partitions).
      if (current.length === 0 && !args.has('preserve-throttles')) {
        const brokers = (
          await client.call<{ data: { broker_id: number }[] }>('GET', `${path}/brokers`)
        ).data.map((b) => b.broker_id);
        throttles = {
          brokers: [...brokers, ...entries.flatMap((e) => e.replicas)],
          topics: entries.map((e) => e.topic),
        };
      }
      io.stdout(formatVerify(statuses, throttles));
      return 0;
    }

    // --execute
    if (!args.has('additional') && (await ongoing()).length > 0) {
      io.stdout(`${CANNOT_EXECUTE_BECAUSE_OF_EXISTING}\n`);
      return 1;
    }
    const brokers = new Set(
      (await client.call<{ data: { broker_id: number }[] }>('GET', `${path}/brokers`)).data.map(
        (b) => b.broker_id,
      ),
    );
    const unknown = entries.flatMap((e) => e.replicas).find((id) => !brokers.has(id));
    if (unknown !== undefined) return error(`Unknown broker id ${unknown}`);
    const topics = await views();
    const missingTopic = entries.find((e) => !topics.has(e.topic));
    if (missingTopic)
      return error(
        `org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic ${missingTopic.topic} not found.`,
      );
    const missing = entries.filter((e) => !topics.get(e.topic)!.partitions[e.partition]);
    if (missing.length > 0)
      return error(
        `org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Unable to find partition: ${missing.map(tpString).join(', ')}`,
      );
    const current: ReassignmentEntry[] = entries.map((e) => ({
      topic: e.topic,
      partition: e.partition,
      replicas: [...topics.get(e.topic)!.partitions[e.partition]!.replicas],
    }));
    const proposed = entries.map((e) => ({ topic: e.topic, partition: e.partition }));
    const opts = {
      ...(throttle !== undefined ? { interBrokerThrottle: throttle } : {}),
      ...(logDirThrottle !== undefined ? { logDirThrottle } : {}),
    };
    const text = formatExecute(current, proposed, opts);
    const res = await client.request<{ message?: string }>(
      'POST',
      `${path}/topics/-/partitions/-/reassignment`,
      {
        version: 1,
        partitions: entries,
      },
    );
    if (res.status >= 200 && res.status < 300) {
      io.stdout(text);
      return 0;
    }
    // The rollback JSON was printed before the request failed; then the failure, as a TerseException.
    io.stdout(text.slice(0, text.lastIndexOf('Successfully started')));
    io.stdout(`${res.body?.message ?? `HTTP ${res.status}`}\n`);
    return 1;
  } catch (e) {
    if (e instanceof ApiConnectionError) {
      io.stderr(`kafkasim reassign-partitions: ${e.message}\n`);
      return 1;
    }
    if (e instanceof ApiRequestError) return error(e.message);
    throw e;
  }
}
