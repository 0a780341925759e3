#!/usr/bin/env bash
# Issue 23's largest target, as a script a person runs (not CI: it takes minutes of CPU and GBs of memory):
# 100 brokers, 100,000 partitions, RF 3, kafka-producer-perf-test at 50,000 records/s x 512 B for 10 minutes of
# virtual time, on the built package (npm run build first). The topic keeps 60 s of data (retention.ms=60000,
# segments of 15 s, brokers' retention check every 30 s), as a long soak on real brokers would, so that the logs
# stay bounded; --retention-ms 0 keeps Kafka's 7 days (memory then grows with every batch).
#
#   scripts/scale-soak.sh [--seconds 600] [--retention-ms 60000] [any other scale-bench flag]
#
# Prints scale-bench's JSON line, then each target against what was measured:
#   times real time >= 10 (by CPU time and by wall time), RSS <= 4096 MiB, topic creation < 5 s.
# Exits 1 when a target is missed (the run itself succeeded).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f dist/src/cluster/index.js ]]; then
  echo "scale-soak: no dist/ build; run npm run build first" >&2
  exit 2
fi
args=(--brokers 100 --partitions 100000 --rate 50000 --seconds 600 --retention-ms 60000)
line=$(node --max-old-space-size=12288 --expose-gc --import tsx scripts/scale-bench.ts --dist "${args[@]}" "$@" | tail -1)
echo "$line"
node -e '
const r = JSON.parse(process.argv[1]);
const rows = [
  ["times real time (CPU)", r.timesRealTimeCpu, ">= 10", r.timesRealTimeCpu >= 10],
  ["times real time (wall)", r.timesRealTime, ">= 10", r.timesRealTime >= 10],
  ["RSS MiB", r.rssMiB, "<= 4096", r.rssMiB <= 4096],
  ["topic creation ms (wall)", r.createMs, "< 5000", r.createMs < 5000],
  ["topic creation ms (CPU)", r.createCpuMs, "< 5000", r.createCpuMs < 5000],
];
let ok = true;
for (const [name, v, target, met] of rows) {
  console.log(`${met ? "met    " : "NOT met"}  ${name}: ${v} (target ${target})`);
  ok &&= met;
}
process.exit(ok ? 0 : 1);
' "$line"
