// `kafkasim consumer-perf-test`: kafka-consumer-perf-test.sh against a running `kafkasim serve`. Starts the
// perf-test consumer in the simulation and streams the tool's lines (header, --show-detailed-stats rows every
// --reporting-interval, or the summary row) as virtual time passes. Facts: apache/kafka ConsumerPerformance
// (ConsumerPerfOptions: --bootstrap-server, --topic, --messages, --reporting-interval, --show-detailed-stats,
// --timeout, --from-latest, --hide-header, --date-format, --group).
import { readFileSync } from 'node:fs';
import { clientFor } from '../api/client.ts';
import { intOption, parseProperties, ToolArgsError } from '../api/tool-args.ts';
import { CONSUMER_PERF_DATE_FORMAT } from '../format/index.ts';
import { type CliIO, UsageError } from './io.ts';
import { toolCommandArgs } from './tool-command.ts';
import { runStreamedWorkload } from './workload-stream.ts';

export const CONSUMER_PERF_USAGE = `Usage: kafkasim consumer-perf-test --bootstrap-server http://HOST:PORT --topic T --messages N [options]

kafka-consumer-perf-test.sh against a running \`kafkasim serve\`: consumes in the simulation and prints the
tool's lines as virtual time passes (at the server's --speed). The consumer joins a group, as the tool does.
Options:
  --topic T                   topic to consume from
  --messages N                number of messages to consume
  --reporting-interval MS     interval between detailed rows (default 5000)
  --show-detailed-stats       a row per interval instead of one summary row
  --timeout MS                stop when no record came for this long (default 10000)
  --from-latest               start at the end of the log instead of the beginning
  --hide-header               no header row
  --group G                   the consumer group (default perf-consumer-N, N drawn from the seed)
  --consumer.config FILE      consumer configs (client.id) from a properties file
  --help                      show this help
`;

const SPEC = {
  'bootstrap-server': 'value',
  broker: 'value',
  topic: 'value',
  include: 'value',
  messages: 'value',
  'reporting-interval': 'value',
  'show-detailed-stats': 'flag',
  timeout: 'value',
  'from-latest': 'flag',
  'hide-header': 'flag',
  'date-format': 'value',
  group: 'value',
  'fetch-size': 'value',
  'socket-buffer-size': 'value',
  threads: 'value',
  'num-fetch-threads': 'value',
  'consumer.config': 'value',
  'command-config': 'value',
  'print-metrics': 'flag',
  help: 'flag',
} as const;

function bad(message: string): never {
  throw new UsageError(`${message}\n\n${CONSUMER_PERF_USAGE}`);
}

export async function consumerPerfTestCommand(argv: string[], io: CliIO): Promise<number> {
  const args = toolCommandArgs(argv, SPEC, CONSUMER_PERF_USAGE, io);
  if (!args) return 0;
  if (args.has('include')) bad('--include is not supported by kafkasim consumer-perf-test: use --topic');
  const dateFormat = args.value('date-format');
  if (dateFormat !== undefined && dateFormat !== CONSUMER_PERF_DATE_FORMAT)
    bad(`--date-format: kafkasim prints ${CONSUMER_PERF_DATE_FORMAT} only`);
  const bootstrap = args.value('bootstrap-server') ?? args.value('broker');
  if (bootstrap === undefined) bad('Missing required argument "[bootstrap-server]"');
  const topic = args.value('topic');
  if (topic === undefined) bad('Missing required argument "[topic]"');
  let messages: number | undefined;
  let interval: number | undefined;
  let timeout: number | undefined;
  try {
    messages = intOption(args.value('messages'), 'messages', 1, 100_000_000);
    interval = intOption(args.value('reporting-interval'), 'reporting-interval', 1, 3_600_000);
    timeout = intOption(args.value('timeout'), 'timeout', 1, 86_400_000);
  } catch (e) {
    if (e instanceof ToolArgsError) bad(e.message);
    throw e;
  }
  if (messages === undefined) bad('Missing required argument "[messages]"');
  let props: Record<string, string> = {};
  const file = args.value('consumer.config');
  if (file !== undefined) {
    try {
      props = parseProperties(readFileSync(file, 'utf8'));
    } catch (e) {
      bad(`cannot read --consumer.config ${file}: ${(e as Error).message}`);
    }
  }
  let client: ReturnType<typeof clientFor>;
  try {
    client = clientFor(bootstrap, io.env, 'kafka-consumer-perf-test');
  } catch (e) {
    bad((e as Error).message);
  }
  return runStreamedWorkload('consumer-perf-test', io, client, {
    kind: 'consumer-perf',
    topic,
    messages,
    ...(interval !== undefined ? { reporting_interval_ms: interval } : {}),
    ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
    show_detailed_stats: args.has('show-detailed-stats'),
    from_latest: args.has('from-latest'),
    hide_header: args.has('hide-header'),
    ...(args.value('group') !== undefined ? { group: args.value('group') } : {}),
    consumer_props: props['client.id'] !== undefined ? { 'client.id': props['client.id'] } : {},
  });
}
