// The rolling-restart what-if of issue 22, as a sweep: protocol (classic, consumer) x members x partitions x seeds.
// Each cell restarts every member of a Java consumer group one at a time (src/cluster/group-rolling-restart.ts)
// and prints one row: how many partitions paused, for how long in total and at most, how long the whole group was
// stopped, and the roll's duration (virtual time, medians over the seeds).
//
//   node --import tsx scripts/group-rolling-restart.ts
//   node --import tsx scripts/group-rolling-restart.ts --members 3,6 --partitions 6,12 --seeds 3 [--json]
import { rollingRestart } from '../src/cluster/group-rolling-restart.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
function list(name: string, fallback: string): number[] {
  const values = arg(name, fallback).split(',').map(Number);
  const bad = values.find((v) => !Number.isInteger(v) || v < 1);
  if (bad !== undefined) {
    console.error(`--${name} takes positive integers separated by commas, not ${arg(name, fallback)}`);
    process.exit(2);
  }
  return values;
}

const members = list('members', '3,6');
const partitions = list('partitions', '6,12');
const [seeds] = list('seeds', '3');
const json = process.argv.includes('--json');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (!json)
  console.log(
    'protocol  members  partitions  paused  paused-partition-s  longest-pause-s  whole-group-stopped-s  roll-s',
  );
for (const m of members)
  for (const p of partitions)
    for (const protocol of ['classic', 'consumer'] as const) {
      const runs = Array.from({ length: seeds! }, (_, i) =>
        rollingRestart({ protocol, members: m, partitions: p, seed: i + 1 }),
      );
      if (runs.some((r) => r.doubleOwned > 0)) {
        console.error(
          `${protocol} ${m}x${p}: a partition was owned twice (replay: seed ${runs.findIndex((r) => r.doubleOwned > 0) + 1})`,
        );
        process.exitCode = 1;
      }
      const row = {
        protocol,
        members: m,
        partitions: p,
        pausedPartitions: median(runs.map((r) => r.pausedPartitions)),
        pausedPartitionS: median(runs.map((r) => r.pausedPartitionMs)) / 1000,
        longestPauseS: median(runs.map((r) => r.longestPauseMs)) / 1000,
        allPausedS: median(runs.map((r) => r.allPausedMs)) / 1000,
        rollS: Math.round(median(runs.map((r) => r.rollMs))) / 1000,
      };
      if (json) console.log(JSON.stringify(row));
      else
        console.log(
          `${protocol.padEnd(9)} ${String(m).padStart(7)}  ${String(p).padStart(10)}  ${String(row.pausedPartitions).padStart(6)}  ${row.pausedPartitionS.toFixed(1).padStart(18)}  ${row.longestPauseS.toFixed(1).padStart(15)}  ${row.allPausedS.toFixed(2).padStart(21)}  ${row.rollS.toFixed(1).padStart(6)}`,
        );
    }
