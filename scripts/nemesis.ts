// The nemesis suite (test/nemesis) from the command line: replay one run, or soak over many seeds.
//
//   npm run nemesis -- --config plain --seed 69       replay one run: its faults in order, what the checker found,
//                                                      and the run's fingerprint (the same on every machine)
//   npm run nemesis -- --config all --from 1 --seeds 500
//   npm run nemesis:soak                              every configuration over 2,000 seeds (--from/--seeds change it)
//
// Exits 1 when a run broke a promise of its configuration (acks=all must lose nothing; acks=1 and unclean
// election may lose acknowledged records, but nothing else may break), printing each one's replay command.
import { parseArgs } from 'node:util';
import {
  brokenPromises,
  NEMESIS_CONFIGS,
  type NemesisConfigName,
  runNemesis,
} from '../test/nemesis/nemesis.ts';
import { CONFIG_NAMES, failureOf } from '../test/nemesis/suite.ts';

const USAGE =
  'usage: nemesis --config <idempotent|plain|acks1|unclean|retention|all> (--seed N | --from N --seeds N)';

function fail(message: string): never {
  process.stderr.write(`nemesis: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a non-negative integer, not '${value}'`);
  return Number(value);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      config: { type: 'string', default: 'all' },
      seed: { type: 'string' },
      from: { type: 'string' },
      seeds: { type: 'string' },
    },
    strict: true,
  }).values;
}
try {
  args = parse();
} catch (err) {
  fail((err as Error).message);
}
const configs: NemesisConfigName[] =
  args.config === 'all'
    ? CONFIG_NAMES
    : Object.hasOwn(NEMESIS_CONFIGS, args.config!)
      ? [args.config as NemesisConfigName]
      : fail(`unknown --config '${args.config}'`);

if (args.seed !== undefined) {
  if (args.from !== undefined || args.seeds !== undefined)
    fail('--seed replays one run; --from/--seeds run many');
  const seed = integer('seed', args.seed, 0);
  let broke = false;
  for (const config of configs) {
    const r = runNemesis(config, seed);
    console.log(`nemesis ${config} seed ${seed}: ${r.virtualMs.toFixed(0)} ms virtual, ${r.events} events`);
    for (const f of r.faults) console.log(`  ${String(f.t).padStart(6)} ms  ${f.kind} ${f.detail}`);
    console.log(
      `  acknowledged ${r.acknowledged}, committed ${r.committed}, unclean elections ${r.uncleanElections}` +
        (NEMESIS_CONFIGS[config].retention
          ? `, deleted by retention ${r.deleted}, followers started over at the leader's log start ${r.fullTruncations}`
          : ''),
    );
    for (const v of r.violations) console.log(`  found: ${v}`);
    const broken = brokenPromises(r);
    console.log(broken.length === 0 ? '  every promise of this configuration holds' : '  BROKEN');
    console.log(`  fingerprint ${r.fingerprint}`);
    broke ||= broken.length > 0;
  }
  process.exit(broke ? 1 : 0);
}

const from = integer('from', args.from, 1);
const count = integer('seeds', args.seeds, 200);
const started = performance.now();
const failures: string[] = [];
for (const config of configs) {
  let lossy = 0;
  let acknowledged = 0;
  let brokeHere = 0;
  for (let seed = from; seed < from + count; seed++) {
    const r = runNemesis(config, seed);
    if (r.lost) lossy++;
    acknowledged += r.acknowledged;
    const f = failureOf(r);
    if (f) {
      brokeHere++;
      failures.push(f);
      console.log(f);
    }
  }
  console.log(
    `${config}: ${count} seeds from ${from}, ${acknowledged} records acknowledged, ${lossy} runs lost some, ${brokeHere} broke a promise`,
  );
}
console.log(`${((performance.now() - started) / 1000).toFixed(1)} s wall`);
process.exit(failures.length > 0 ? 1 : 0);
