// `kafkasim producer-perf-test`: kafka-producer-perf-test.sh against a running `kafkasim serve`. Starts the
// perf-test workload in the simulation and streams its lines as the simulated clock produces them: the
// progress and summary lines on stdout, the producer's WARN lines (retries, metadata refreshes) on stderr, as
// the tool writes them. Facts: apache/kafka ProducerPerformance (argParser: --topic, --num-records,
// --record-size, --throughput, --producer-props, --producer.config, --bootstrap-server).
import { readFileSync } from 'node:fs';
import { clientFor } from '../api/client.ts';
import { intOption, keyValues, parseProperties, ToolArgsError } from '../api/tool-args.ts';
import { type CliIO, UsageError } from './io.ts';
import { toolCommandArgs } from './tool-command.ts';
import { runStreamedWorkload } from './workload-stream.ts';

export const PRODUCER_PERF_USAGE = `Usage: kafkasim producer-perf-test --topic T --num-records N --record-size B --throughput R
         (--bootstrap-server http://HOST:PORT | --producer-props bootstrap.servers=http://HOST:PORT ...)

kafka-producer-perf-test.sh against a running \`kafkasim serve\`: produces in the simulation and prints the
tool's lines as virtual time passes (at the server's --speed).
Options:
  --topic T                 topic to produce to
  --num-records N           number of records
  --record-size B           bytes per record
  --throughput R            records/s, -1 for no throttling
  --producer-props k=v...   producer configs (acks, linger.ms, batch.size, client.id, ...)
  --producer.config FILE    producer configs from a properties file
  --bootstrap-server URL    the server (or bootstrap.servers in the producer props)
  --print-metrics           accepted and ignored
  --help                    show this help
`;

const SPEC = {
  topic: 'value',
  'num-records': 'value',
  'record-size': 'value',
  throughput: 'value',
  'producer-props': 'multi',
  'producer.config': 'value',
  'bootstrap-server': 'value',
  'print-metrics': 'flag',
  'payload-file': 'value',
  'payload-delimiter': 'value',
  'payload-monotonic': 'flag',
  'transactional-id': 'value',
  'transaction-duration-ms': 'value',
  help: 'flag',
} as const;

function bad(message: string): never {
  throw new UsageError(`${message}\n\n${PRODUCER_PERF_USAGE}`);
}

export async function producerPerfTestCommand(argv: string[], io: CliIO): Promise<number> {
  const args = toolCommandArgs(argv, SPEC, PRODUCER_PERF_USAGE, io);
  if (!args) return 0;
  for (const unsupported of [
    'payload-file',
    'payload-delimiter',
    'payload-monotonic',
    'transactional-id',
    'transaction-duration-ms',
  ]) {
    if (args.has(unsupported)) bad(`--${unsupported} is not supported by kafkasim producer-perf-test`);
  }
  const topic = args.value('topic');
  if (topic === undefined) bad('argument --topic is required');
  let numRecords: number | undefined;
  let recordSize: number | undefined;
  let props: Record<string, string> = {};
  let throughput: number;
  try {
    numRecords = intOption(args.value('num-records'), 'num-records', 1, 100_000_000);
    recordSize = intOption(args.value('record-size'), 'record-size', 1, 10_485_760);
    const t = args.value('throughput');
    if (t === undefined || !/^-?\d+(\.\d+)?$/.test(t.trim()))
      bad(`argument --throughput is required (a number, -1 for no throttling)`);
    throughput = Number(t);
    const file = args.value('producer.config');
    if (file !== undefined) {
      try {
        props = parseProperties(readFileSync(file, 'utf8'));
      } catch (e) {
        bad(`cannot read --producer.config ${file}: ${(e as Error).message}`);
      }
    }
    props = { ...props, ...keyValues(args.all('producer-props'), '--producer-props') };
  } catch (e) {
    if (e instanceof ToolArgsError) bad(e.message);
    throw e;
  }
  if (numRecords === undefined) bad('argument --num-records is required');
  if (recordSize === undefined) bad('either --record-size or --payload-file must be specified but not both.');
  if (throughput === 0) bad('--throughput must be above 0 records/s, or -1 for no throttling');
  const bootstrap = args.value('bootstrap-server') ?? props['bootstrap.servers'];
  if (bootstrap === undefined)
    bad(
      'Either --bootstrap-server or bootstrap.servers in --producer-props/--producer.config must be specified',
    );
  let client: ReturnType<typeof clientFor>;
  try {
    client = clientFor(bootstrap, io.env, 'kafka-producer-perf-test');
  } catch (e) {
    bad((e as Error).message);
  }
  const { 'bootstrap.servers': _, ...producerProps } = props;
  return runStreamedWorkload('producer-perf-test', io, client, {
    kind: 'producer-perf',
    topic,
    num_records: numRecords,
    throughput,
    record_size: recordSize,
    producer_props: producerProps,
  });
}
