// `kafkasim consumer-groups`: kafka-consumer-groups.sh --describe (offsets, --state, --members, [--verbose]) and
// --list against a running `kafkasim serve`, printing exactly what the tool prints (src/format), stdout and
// stderr as the tool splits them. Facts: apache/kafka ConsumerGroupCommand (describeGroups, printError, main's
// "Executing consumer group command failed due to").
import { ApiConnectionError, ApiRequestError, clientFor } from '../api/client.ts';
import {
  type ConsumerGroupView,
  formatConsumerGroupMembers,
  formatConsumerGroupOffsets,
  formatConsumerGroupState,
} from '../format/index.ts';
import { type CliIO, UsageError } from './io.ts';
import { toolCommandArgs } from './tool-command.ts';

export const CONSUMER_GROUPS_USAGE = `Usage: kafkasim consumer-groups --bootstrap-server http://HOST:PORT <action> [options]

kafka-consumer-groups.sh against a running \`kafkasim serve\`. One action:
  --describe   describe groups (--group G [--group G2...] | --all-groups), with one of
               --offsets (default), --state [--verbose], --members [--verbose]
  --list       list the groups
Output is Kafka 3.9's tool's for classic groups and Kafka 4.x's when a group described uses
the consumer protocol (KIP-848): --state --verbose adds GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH,
--members --verbose each member's CURRENT-EPOCH, CURRENT-ASSIGNMENT, TARGET-EPOCH and
TARGET-ASSIGNMENT (and UPGRADED while a group is being migrated). --state --verbose is 4.x's.
Options:
  --bootstrap-server URL   the server, e.g. http://127.0.0.1:8082
  --help                   show this help
`;

const SPEC = {
  'bootstrap-server': 'value',
  describe: 'flag',
  list: 'flag',
  group: 'repeat',
  'all-groups': 'flag',
  offsets: 'flag',
  state: 'flag',
  members: 'flag',
  verbose: 'flag',
  timeout: 'value',
  'command-config': 'value',
  help: 'flag',
} as const;

export async function consumerGroupsCommand(argv: string[], io: CliIO): Promise<number> {
  const args = toolCommandArgs(argv, SPEC, CONSUMER_GROUPS_USAGE, io);
  if (!args) return 0;
  const actions = (['describe', 'list'] as const).filter((a) => args.has(a));
  if (actions.length !== 1)
    throw new UsageError(
      'Command must include exactly one action: --list, --describe (kafkasim supports these)',
    );
  const bootstrap = args.value('bootstrap-server');
  if (bootstrap === undefined) throw new UsageError('Missing required argument "[bootstrap-server]"');
  const views = (['offsets', 'state', 'members'] as const).filter((v) => args.has(v));
  if (views.length > 1)
    throw new UsageError(
      'Option [describe] takes at most one of these options: [offsets], [state], [members]',
    );
  // Kafka 4.x takes --verbose with any describe; its offsets view's LEADER-EPOCH (the committed offset's leader
  // epoch) is not modelled, so kafkasim takes it with the two views it prints in full.
  if (args.has('verbose') && !args.has('members') && !args.has('state'))
    throw new UsageError(
      'Option [verbose] can only be used with [members] or [state] (kafkasim does not keep the committed leader epoch the offsets view would print)',
    );
  const describe = actions[0] === 'describe';
  if (describe && args.all('group').length === 0 && !args.has('all-groups'))
    throw new UsageError('Option [describe] takes one of these options: [all-groups], [group]');
  let client: ReturnType<typeof clientFor>;
  try {
    client = clientFor(bootstrap, io.env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }

  try {
    const path = await client.clusterPath();
    const listGroups = async () =>
      (
        await client.call<{ data: { consumer_group_id: string }[] }>('GET', `${path}/consumer-groups`)
      ).data.map((g) => g.consumer_group_id);
    if (!describe) {
      const ids = await listGroups();
      io.stdout(ids.map((g) => `${g}\n`).join(''));
      return 0;
    }
    const ids = args.has('all-groups') ? await listGroups() : [...args.all('group')];
    const groups: ConsumerGroupView[] = [];
    for (const id of ids)
      groups.push(
        await client.call<ConsumerGroupView>('GET', `/sim/views/consumer-groups/${encodeURIComponent(id)}`),
      );
    const out = args.has('state')
      ? formatConsumerGroupState(groups, { verbose: args.has('verbose') })
      : args.has('members')
        ? formatConsumerGroupMembers(groups, { verbose: args.has('verbose') })
        : formatConsumerGroupOffsets(groups);
    io.stderr(out.stderr);
    io.stdout(out.stdout);
    return 0;
  } catch (e) {
    if (e instanceof ApiConnectionError) {
      io.stderr(`kafkasim consumer-groups: ${e.message}\n`);
      return 1;
    }
    if (e instanceof ApiRequestError) {
      io.stdout(`\nError: Executing consumer group command failed due to ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
