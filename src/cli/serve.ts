// `kafkasim serve`: serves a simulated cluster over HTTP (Confluent REST v3 admin, simulation control, metrics,
// OpenAPI docs) with the simulation paced to the wall clock, until SIGINT or SIGTERM. Built from a scenario
// file (its cluster, topics and clients) or from --brokers/--storage. Exit 0 after a clean shutdown, 2 on bad
// input, 1 when the server cannot start (e.g. the port is taken).
import { writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { playLesson } from '../api/lesson-player.ts';
import { MAX_SPEED, type Speed, speedOf } from '../api/pacer.ts';
import { REQUEST_LOG_LIMITS } from '../api/request-log.ts';
import { type LakeCredentials, parseLakeCredentials } from '../api/served-lake.ts';
import { DEFAULT_HOST, DEFAULT_PORT, type RunningServer, startServer } from '../api/server.ts';
import { WORLD_LIMITS, type WorldOptions } from '../api/world.ts';
import { ScenarioError } from '../scenario/index.ts';
import { InputFileError, readInputFile } from '../scenario/input-file.ts';
import { parseFlags } from './flags.ts';
import { type CliIO, UsageError } from './io.ts';
import { reportScenarioError, resolveScenarioPath } from './run.ts';

export const SERVE_USAGE = `Usage: kafkasim serve [scenario.yaml] [options]

Serves a simulated cluster over HTTP until Ctrl-C (SIGINT) or SIGTERM. The simulation runs paced to the wall
clock at --speed; tools talk to it with the Confluent REST v3 API, the /sim control API, and the CLI's client
commands (kafkasim topics|reassign-partitions|consumer-groups|producer-perf-test|consumer-perf-test
--bootstrap-server http://HOST:PORT).

Options:
  --brokers N           brokers when no scenario is given (default 3, at most ${WORLD_LIMITS.maxBrokers})
  --first-broker-id N   id of the first broker (default 0)
  --controllers N       controllers in the KRaft quorum when no scenario is given (default 1, at most
                        ${WORLD_LIMITS.maxControllers}; 3 is a Raft quorum that survives one controller crash)
  --storage MODE        kafka (replicated local logs, default) or shared (AutoMQ-style)
  --autobalancer        run AutoMQ's auto-balancer (autobalancer.controller.enable=true)
  --seed N              the simulation's seed (default: the scenario's, else 1)
  --host HOST           address to listen on (default ${DEFAULT_HOST}: loopback only)
  --port PORT           port (default ${DEFAULT_PORT}; 0 picks a free one)
  --speed S             virtual seconds per wall second: 1 (real time, default), 10, 100, ... or max
  --paused              start paused (POST /sim/resume, /sim/step and /sim/advance move the clock)
  --play                with a scenario: play its timeline too, each step when it is due (as kafkasim run
                        does, paced at --speed), the steps and their tool output printed here; a pause holds it
  --token T             require "Authorization: Bearer T" (or "X-Kafkasim-Token: T") on every route but /health
  --allowed-hosts H,..  host names the Host header may carry besides localhost, IP addresses and --host
                        (".example.com" allows its subdomains too)
  --lake-user U:P       the Lake's Basic-auth user (default: root with a generated password, printed at start)
  --record-requests F   write the request log (JSON, replayable) to F on shutdown
  --request-log-limit S the most the request log holds, e.g. 512MiB (default ${REQUEST_LOG_LIMITS.maxBytes / 1024 ** 2}MiB, at most 2GiB): past it,
                        changes are refused (409) and Kafka connections closed, so that the log always replays
                        the run; a busy Kafka client fills 64MiB in minutes (the server's memory grows with it)
  --kafka-port PORT     also speak the Kafka protocol: broker i (in id order) on PORT+i, the controller on
                        PORT+brokers (0 picks free ports); bound to --host
  --advertised-host H   the host name Metadata and FindCoordinator give clients (default: --host)
  -h, --help            show this help

The API: /v3/clusters/{id}/... (Confluent REST v3), /sim/... (clock, faults, workloads, trace, snapshot),
/metrics, /openapi.json and /docs. What the server guarantees (and does not): docs/security.md.
`;

function parseSpeedOption(text: string): Speed {
  const speed = speedOf(text);
  if (speed === undefined)
    throw new UsageError(
      `--speed expects a positive decimal number (at most ${MAX_SPEED}, e.g. 10 or 0.5) or max, got '${text}'`,
    );
  return speed;
}

function intOf(text: string | undefined, option: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max)
    throw new UsageError(`--${option} expects a whole number from ${min} to ${max}, got '${text}'`);
  return Number(text);
}

const SIZE_UNITS: Readonly<Record<string, number>> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
export const MAX_REQUEST_LOG_BYTES = 2 * 1024 ** 3;

/** `--request-log-limit`: a size in bytes, or with a unit (KiB, MiB, GiB), from 1 MiB to 2 GiB. */
export function requestLogLimitOf(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB)?$/.exec(text.trim());
  const bytes = m ? Math.floor(Number(m[1]) * SIZE_UNITS[m[2] ?? 'B']!) : Number.NaN;
  if (!(bytes >= 1024 ** 2 && bytes <= MAX_REQUEST_LOG_BYTES))
    throw new UsageError(
      `--request-log-limit expects a size from 1MiB to 2GiB such as 512MiB (units B, KiB, MiB, GiB), got '${text}'`,
    );
  return bytes;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Resolves when one of the signals arrives (the listeners are removed then). */
function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolvePromise) => {
    const on = (signal: NodeJS.Signals) => {
      process.removeListener('SIGINT', on);
      process.removeListener('SIGTERM', on);
      resolvePromise(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

export const UI_USAGE = `Usage: kafkasim ui [scenario.yaml | shipped-scenario-name] [--port PORT] [--seed N] [serve options]

Starts \`kafkasim serve\` with its web UI and prints the URL to open: a live view of the cluster, the partitions,
the consumer groups, the auto-balancer and the Lake; play, pause, step, speed, a scrubbable timeline, branches; faults
and admin by clicking. With a scenario, its timeline becomes a guided lesson (a pause at each step). It starts
paused; every serve option applies (kafkasim serve --help). Teaching with it: docs/ui.md.
`;

/** \`kafkasim ui\`: serve, paused, with the scenario as a lesson, printing the UI's URL first. */
export async function uiCommand(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(UI_USAGE);
    return 0;
  }
  return serveCommand(['--paused', ...argv.filter((a) => a !== '--paused')], io, { ui: true });
}

export async function serveCommand(argv: string[], io: CliIO, mode: { ui?: boolean } = {}): Promise<number> {
  const parsed = parseFlags(mode.ui ? 'ui' : 'serve', argv, {
    brokers: { type: 'string' },
    'first-broker-id': { type: 'string' },
    controllers: { type: 'string' },
    storage: { type: 'string' },
    autobalancer: { type: 'boolean' },
    seed: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    speed: { type: 'string' },
    paused: { type: 'boolean' },
    play: { type: 'boolean' },
    token: { type: 'string' },
    'allowed-hosts': { type: 'string' },
    'lake-user': { type: 'string' },
    'record-requests': { type: 'string' },
    'request-log-limit': { type: 'string' },
    'kafka-port': { type: 'string' },
    'advertised-host': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  const values: Record<string, string | boolean | undefined> = parsed.values;
  const positionals = parsed.positionals;
  if (values.help) {
    io.stdout(SERVE_USAGE);
    return 0;
  }
  if (positionals.length > 1)
    throw new UsageError(`expected at most one scenario file, got ${positionals.length}`);
  const storage = values.storage as string | undefined;
  if (storage !== undefined && storage !== 'kafka' && storage !== 'shared')
    throw new UsageError(`--storage expects kafka or shared, got '${storage}'`);
  const brokers = intOf(values.brokers as string | undefined, 'brokers', 1, WORLD_LIMITS.maxBrokers);
  const controllers = intOf(
    values.controllers as string | undefined,
    'controllers',
    1,
    WORLD_LIMITS.maxControllers,
  );
  const firstBrokerId = intOf(
    values['first-broker-id'] as string | undefined,
    'first-broker-id',
    0,
    2_147_483_647 - WORLD_LIMITS.maxBrokers,
  );
  const port = intOf(values.port as string | undefined, 'port', 0, 65_535) ?? DEFAULT_PORT;
  const kafkaPort = intOf(
    values['kafka-port'] as string | undefined,
    'kafka-port',
    0,
    65_535 - WORLD_LIMITS.maxBrokers,
  );
  const advertisedHost = values['advertised-host'] as string | undefined;
  if (advertisedHost !== undefined && kafkaPort === undefined)
    throw new UsageError('--advertised-host needs --kafka-port');
  if (advertisedHost !== undefined && !/^[A-Za-z0-9.:-]+$/.test(advertisedHost))
    throw new UsageError(`--advertised-host expects a host name or address, got '${advertisedHost}'`);
  const speed = values.speed !== undefined ? parseSpeedOption(values.speed as string) : 1;
  const listenHost = (values.host as string | undefined) ?? DEFAULT_HOST;
  const token = values.token as string | undefined;
  if (token !== undefined && token.length === 0) throw new UsageError('--token must not be empty');
  const allowedHosts = ((values['allowed-hosts'] as string | undefined) ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (const h of allowedHosts)
    if (!/^\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(h))
      throw new UsageError(`--allowed-hosts expects host names separated by commas, got '${h}'`);
  let lakeCredentials: LakeCredentials | undefined;
  if (values['lake-user'] !== undefined) {
    try {
      lakeCredentials = parseLakeCredentials(values['lake-user'] as string);
    } catch (e) {
      throw new UsageError(`--lake-user: ${(e as Error).message}`);
    }
  }
  const requestLogText = values['request-log-limit'] as string | undefined;
  const requestLogMaxBytes = requestLogText === undefined ? undefined : requestLogLimitOf(requestLogText);
  const seedText = values.seed as string | undefined;
  if (seedText !== undefined && !/^-?\d+$/.test(seedText.trim()))
    throw new UsageError(`--seed expects an integer, got '${seedText}'`);
  const scenarioArg = positionals[0];
  if (values.play && mode.ui)
    throw new UsageError(
      "--play is serve's: in kafkasim ui the page plays the lesson (uncheck 'pause at each step')",
    );
  if (values.play && scenarioArg === undefined)
    throw new UsageError(
      "--play plays a scenario's timeline: give a scenario file or a shipped scenario name",
    );
  if (
    scenarioArg !== undefined &&
    (brokers !== undefined ||
      storage !== undefined ||
      firstBrokerId !== undefined ||
      controllers !== undefined)
  )
    throw new UsageError(
      '--brokers, --first-broker-id, --controllers and --storage describe the cluster when no scenario file is given',
    );

  const world: WorldOptions = { seed: seedText !== undefined ? Number(seedText) : 1 };
  let file: string | undefined;
  if (scenarioArg !== undefined) {
    file = resolveScenarioPath(scenarioArg);
    let text: string;
    try {
      text = readInputFile(file);
    } catch (e) {
      if (!(e instanceof InputFileError)) throw e;
      throw new UsageError(`cannot read the scenario file '${scenarioArg}': ${e.message}`);
    }
    world.scenario = { text, name: basename(file), baseDir: dirname(resolve(file)) };
    // `kafkasim ui scenario`: its timeline is a lesson, stepped from the page; `serve --play` steps it by itself
    // (without either, serve runs the scenario as a world: its cluster, topics and clients).
    if (mode.ui || values.play) world.lesson = true;
    // Without --seed the scenario's own seed applies.
    if (seedText === undefined) delete (world as { seed?: unknown }).seed;
  } else {
    if (brokers !== undefined) world.brokers = brokers;
    if (firstBrokerId !== undefined) world.firstBrokerId = firstBrokerId;
    if (controllers !== undefined) world.controllers = controllers;
    if (storage !== undefined) world.storage = storage as 'kafka' | 'shared';
  }
  if (values.autobalancer) world.autobalancer = true;

  let server: RunningServer;
  try {
    server = await startServer({
      world,
      pacer: { speed, paused: values.paused === true },
      listenHost,
      port,
      ...(token !== undefined ? { token } : {}),
      ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
      ...(lakeCredentials ? { lakeCredentials } : {}),
      ...(requestLogMaxBytes !== undefined ? { requestLogMaxBytes } : {}),
      ...(kafkaPort !== undefined
        ? {
            kafka: {
              kafkaPort,
              host: listenHost,
              ...(advertisedHost !== undefined ? { advertisedHost } : {}),
              log: (line: string) => io.stderr(`kafkasim serve: ${line}\n`),
            },
          }
        : {}),
    });
  } catch (e) {
    if (e instanceof ScenarioError) return reportScenarioError(e, 'serve', io, file ?? '');
    if (e instanceof RangeError) throw new UsageError(e.message);
    const code = (e as NodeJS.ErrnoException).code;
    io.stderr(`kafkasim serve: cannot listen on ${listenHost}:${port}: ${code ?? (e as Error).message}\n`);
    return 1;
  }
  const w = server.host.world;
  const c = w.cluster;
  const uiUrl = `${server.url}/${token !== undefined ? `#token=${encodeURIComponent(token)}` : ''}`;
  if (mode.ui) io.stdout(`kafkasim ui: open ${uiUrl}\n`);
  io.stdout(
    `kafkasim serve: cluster ${w.clusterId} (${c.brokers.size} broker${c.brokers.size === 1 ? '' : 's'}, ` +
      `${c.controllers.length > 1 ? `${c.controllers.length} controllers, ` : ''}${c.storage} storage, ` +
      `seed ${c.sim.seed}${w.scenario ? `, scenario ${w.scenario.spec.name}` : ''}) at ${server.url}, speed ${speed}` +
      `${values.paused ? ' (paused)' : ''}\n` +
      `  web UI     ${uiUrl}\n` +
      `  admin API  ${server.url}/v3/clusters/${w.clusterId}\n` +
      `  docs       ${server.url}/docs\n` +
      `  Lake       ${server.url}/v1/query (Basic auth: ${server.lakeCredentials.user}${
        lakeCredentials ? ', password from --lake-user' : `:${server.lakeCredentials.password}`
      })\n` +
      (server.kafka
        ? `  kafka      bootstrap.servers=${server.kafka.bootstrap} (controller: ${server.kafka.controller})\n`
        : '') +
      'Ctrl-C stops the server.\n',
  );
  if (!LOOPBACK.has(listenHost) && token === undefined)
    io.stderr(
      `kafkasim serve: warning: listening on ${listenHost} without --token: anyone who can reach it controls the simulation\n`,
    );

  if (values.play) {
    const at = (ms: number) => `[${(ms / 1000).toFixed(3).padStart(8)} s]`;
    playLesson(server.host, server.pacer, {
      step: (t, index, of, action, note) =>
        io.stdout(`${at(t)} step ${index + 1}/${of} ${action}${note !== undefined ? `: ${note}` : ''}\n`),
      line: (text) => io.stdout(`             ${text}\n`),
      problem: (text) => io.stderr(`kafkasim serve: ${text}\n`),
      done: (t) => io.stdout(`${at(t)} the timeline is done; the cluster runs on until Ctrl-C\n`),
    });
  }

  const recordTo = values['record-requests'] as string | undefined;
  // The request log is written however the server stops: a signal, or a failure nothing else caught.
  let written = false;
  const writeLog = () => {
    if (recordTo === undefined || written) return;
    written = true;
    try {
      writeFileSync(recordTo, `${server.host.requestLogJson(2)}\n`);
    } catch (e) {
      io.stderr(`kafkasim serve: cannot write the request log to ${recordTo}: ${(e as Error).message}\n`);
    }
  };
  process.once('exit', writeLog);
  const signal = await waitForSignal();
  try {
    await server.close();
  } finally {
    writeLog();
    process.removeListener('exit', writeLog);
  }
  io.stdout(
    `kafkasim serve: ${signal}: stopped at virtual time ${(server.host.sim.now / 1000).toFixed(3)}s, trace hash ${server.host.sim.trace.hash}\n`,
  );
  // Work still in flight (a Lake statement being interrupted, a socket closing) must not keep the process up.
  setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref();
  return 0;
}
