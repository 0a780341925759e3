// `kafkasim topics`: kafka-topics.sh against a running `kafkasim serve` (--bootstrap-server http://host:port).
// --create, --describe, --alter --partitions, --delete and --list print exactly what kafka-topics.sh prints
// (src/format), so the source workflows' commands work with only the command name and address changed.
// Facts: apache/kafka TopicCommand (TopicCommandOptions.checkArgs, createTopic, describeTopic, alterTopic,
// deleteTopic, listTopics, ensureTopicExists, IncludeList).
import { ApiConnectionError, ApiRequestError, clientFor } from '../api/client.ts';
import { keyValues, type parseToolArgs } from '../api/tool-args.ts';
import {
  formatCreatedTopic,
  formatTopicCommandError,
  formatTopicDescribe,
  formatTopicList,
  type TopicDescribeView,
} from '../format/index.ts';
import { type CliIO, UsageError } from './io.ts';
import { toolCommandArgs } from './tool-command.ts';

export const TOPICS_USAGE = `Usage: kafkasim topics --bootstrap-server http://HOST:PORT <action> [options]

kafka-topics.sh against a running \`kafkasim serve\`. Exactly one action:
  --create         create a topic (--topic, [--partitions N], [--replication-factor N],
                   [--replica-assignment 0:1,1:2], [--config k=v]..., [--if-not-exists])
  --describe       describe topics ([--topic REGEX], [--under-replicated-partitions],
                   [--unavailable-partitions], [--under-min-isr-partitions], [--at-min-isr-partitions],
                   [--topics-with-overrides], [--if-exists])
  --alter          add partitions (--topic REGEX --partitions N, [--if-exists])
  --delete         delete topics (--topic REGEX, [--if-exists])
  --list           list topic names ([--topic REGEX])
Options:
  --bootstrap-server URL   the server, e.g. http://127.0.0.1:8082 (host:port means http)
  --exclude-internal       accepted (the simulated cluster has no internal topics)
  --command-config FILE    accepted and ignored
  --help                   show this help
The bearer token of a server started with --token is read from KAFKASIM_TOKEN.
`;

const SPEC = {
  'bootstrap-server': 'value',
  create: 'flag',
  describe: 'flag',
  alter: 'flag',
  delete: 'flag',
  list: 'flag',
  topic: 'value',
  partitions: 'value',
  'replication-factor': 'value',
  'replica-assignment': 'value',
  config: 'repeat',
  'if-exists': 'flag',
  'if-not-exists': 'flag',
  'exclude-internal': 'flag',
  'under-replicated-partitions': 'flag',
  'unavailable-partitions': 'flag',
  'under-min-isr-partitions': 'flag',
  'at-min-isr-partitions': 'flag',
  'topics-with-overrides': 'flag',
  'command-config': 'value',
  help: 'flag',
} as const;

const ACTIONS = ['create', 'describe', 'alter', 'delete', 'list'] as const;

/** TopicCommand's IncludeList: commas mean alternatives, surrounding quotes are dropped, the whole name must match. */
export function topicMatcher(include: string | undefined): (name: string) => boolean {
  if (include === undefined) return () => true;
  const regex = include
    .trim()
    .replace(/,/g, '|')
    .replace(/^["']+/, '')
    .replace(/["']+$/, '');
  try {
    const re = new RegExp(`^(?:${regex})$`);
    return (name) => re.test(name);
  } catch {
    return (name) => name === include;
  }
}

function positiveInt(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(text.trim()))
    throw new UsageError(`--${option} expects a whole number, got '${text}'`);
  return Number(text);
}

/** `--replica-assignment 0:1,1:2`: partitions separated by commas, each a colon-separated broker list. */
function replicaAssignment(text: string): { partition_id: number; broker_ids: number[] }[] {
  return text.split(',').map((part, partition) => {
    const ids = part.split(':').map((s) => s.trim());
    if (ids.some((id) => !/^\d+$/.test(id)))
      throw new UsageError(`--replica-assignment: '${part}' is not a colon-separated list of broker ids`);
    return { partition_id: partition, broker_ids: ids.map(Number) };
  });
}

export async function topicsCommand(argv: string[], io: CliIO): Promise<number> {
  const args = toolCommandArgs(argv, SPEC, TOPICS_USAGE, io);
  if (!args) return 0;
  const actions = ACTIONS.filter((a) => args.has(a));
  if (actions.length !== 1)
    throw new UsageError(
      'Command must include exactly one action: --list, --describe, --create, --alter or --delete',
    );
  const bootstrap = args.value('bootstrap-server');
  if (bootstrap === undefined) throw new UsageError('Missing required argument "[bootstrap-server]"');
  const action = actions[0]!;
  const topic = args.value('topic');
  if ((action === 'create' || action === 'alter' || action === 'delete') && topic === undefined)
    throw new UsageError('Missing required argument "[topic]"');
  if (action === 'alter' && !args.has('partitions'))
    throw new UsageError('--alter needs --partitions (kafkasim alters only the partition count)');
  if (args.has('if-not-exists') && action !== 'create')
    throw new UsageError('--if-not-exists is only valid with --create');
  const partitions = positiveInt(args.value('partitions'), 'partitions');
  const replicationFactor = positiveInt(args.value('replication-factor'), 'replication-factor');
  const configs = keyValues(args.all('config'), '--config');
  const assignment =
    args.value('replica-assignment') !== undefined
      ? replicaAssignment(args.value('replica-assignment')!)
      : undefined;
  if (assignment && (partitions !== undefined || replicationFactor !== undefined))
    throw new UsageError(
      'Option "[replica-assignment]" can\'t be used with option "[partitions]" or "[replication-factor]"',
    );

  let client: ReturnType<typeof clientFor>;
  try {
    client = clientFor(bootstrap, io.env, 'kafka-topics');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const fail = (message: string) => {
    io.stdout(formatTopicCommandError(message));
    return 1;
  };
  try {
    const path = await client.clusterPath();
    const names = async () =>
      (await client.call<{ data: { topic_name: string }[] }>('GET', `${path}/topics`)).data.map(
        (t) => t.topic_name,
      );
    const matching = async () => {
      const match = topicMatcher(topic);
      return (await names()).filter(match);
    };
    /** TopicCommand.ensureTopicExists. */
    const ensure = (found: string[]) => {
      if (found.length === 0 && topic !== undefined && !args.has('if-exists'))
        throw new ApiRequestError(404, 0, `Topic '${topic}' does not exist as expected`);
    };

    switch (action) {
      case 'create': {
        const body = {
          topic_name: topic!,
          ...(partitions !== undefined ? { partitions_count: partitions } : {}),
          ...(replicationFactor !== undefined ? { replication_factor: replicationFactor } : {}),
          ...(assignment ? { replicas_assignments: assignment } : {}),
          ...(Object.keys(configs).length > 0
            ? { configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }
            : {}),
        };
        const res = await client.request<{ message?: string }>('POST', `${path}/topics`, body);
        if (res.status >= 200 && res.status < 300) {
          io.stdout(formatCreatedTopic(topic!));
          return 0;
        }
        const message = res.body?.message ?? `HTTP ${res.status}`;
        if (args.has('if-not-exists') && message === `Topic '${topic}' already exists.`) return 0;
        return fail(message);
      }
      case 'list': {
        io.stdout(formatTopicList(await matching()));
        return 0;
      }
      case 'describe': {
        const match = topicMatcher(topic);
        const views = (
          await client.call<{ topics: TopicDescribeView[] }>('GET', '/sim/views/topics')
        ).topics.filter((t) => match(t.name));
        ensure(views.map((v) => v.name));
        io.stdout(describe(views, args));
        return 0;
      }
      case 'alter': {
        const found = await matching();
        ensure(found);
        for (const name of found) {
          await client.call('PATCH', `${path}/topics/${encodeURIComponent(name)}`, {
            partitions_count: partitions,
          });
        }
        return 0;
      }
      case 'delete': {
        const found = await matching();
        ensure(found);
        for (const name of found) await client.call('DELETE', `${path}/topics/${encodeURIComponent(name)}`);
        return 0;
      }
    }
  } catch (e) {
    if (e instanceof ApiConnectionError) {
      io.stderr(`kafkasim topics: ${e.message}\n`);
      return 1;
    }
    if (e instanceof ApiRequestError) return fail(e.message);
    throw e;
  }
}

/** describeTopic with its reporting options: with a partition filter only matching partition lines print. */
function describe(views: readonly TopicDescribeView[], args: ReturnType<typeof parseToolArgs>): string {
  const minIsr = (v: TopicDescribeView) =>
    Number(
      (v.configs as readonly (readonly [string, string])[]).find(([k]) => k === 'min.insync.replicas')?.[1] ??
        '1',
    );
  type P = TopicDescribeView['partitions'][number];
  const filters: ((p: P, v: TopicDescribeView) => boolean)[] = [];
  if (args.has('under-replicated-partitions')) filters.push((p) => p.isr.length < p.replicas.length);
  if (args.has('unavailable-partitions')) filters.push((p) => p.leader === null || p.leader < 0);
  if (args.has('under-min-isr-partitions')) filters.push((p, v) => p.isr.length < minIsr(v));
  if (args.has('at-min-isr-partitions')) filters.push((p, v) => p.isr.length === minIsr(v));
  let out = '';
  for (const v of views) {
    if (args.has('topics-with-overrides') && (v.configs as readonly unknown[]).length === 0) continue;
    const text = formatTopicDescribe(v);
    if (filters.length === 0) {
      out += args.has('topics-with-overrides') ? `${text.split('\n')[0]}\n` : text;
      continue;
    }
    const lines = text.split('\n').slice(1, -1);
    v.partitions.forEach((p, i) => {
      if (filters.some((f) => f(p, v))) out += `${lines[i]}\n`;
    });
  }
  return out;
}
