#!/usr/bin/env bash
# What the data-plane invariants cost the test suite: the test files that run clusters (the scenario tests and
# test/cluster/, by default) with them on (the project's configuration) and off (test/bench/vitest.invariants-off
# .config.ts), interleaved on, off, on, off... so both arms see the same machine load, one vitest worker each.
# Prints each run's CPU seconds (user + sys, the figure that load disturbs least) and wall seconds, and the best of
# each arm. Test and hook timeouts are raised to 10 minutes in both arms, so that a slow test (or a slow beforeAll) on a
# loaded machine is timed in full rather than cut at its timeout.
# Usage: scripts/invariants-suite-cost.sh [rounds=2] [test files...]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
shift || true
files=("$@")
[[ ${#files[@]} -eq 0 ]] && files=(test/scenario/scenarios.test.ts test/cluster/)
out=$(mktemp -d)
run() { # arm round
  local cfg=()
  [[ "$1" == off ]] && cfg=(--config test/bench/vitest.invariants-off.config.ts)
  local rc=0
  /usr/bin/time -f '%U %S %e' -o "$out/$1.$2" npx vitest run "${cfg[@]}" --maxWorkers=1 --testTimeout=600000 --hookTimeout=600000 "${files[@]}" \
    >"$out/$1.$2.log" 2>&1 || rc=$?
  read -r u s e < <(tail -n 1 "$out/$1.$2")
  printf '%-3s round %d: cpu %7.1f s  wall %7.1f s  vitest exit %d  (%s)\n' "$1" "$2" "$(echo "$u + $s" | bc)" "$e" \
    "$rc" "$(sed 's/\x1b\[[0-9;]*m//g' "$out/$1.$2.log" | grep -E '^ +Tests ' | tr -s ' ')"
}
for ((i = 1; i <= rounds; i++)); do
  run on "$i"
  run off "$i"
done
for arm in on off; do
  best=$(for f in "$out"/$arm.[0-9]*; do [[ $f == *.log ]] && continue; read -r u s _ < <(tail -n 1 "$f"); echo "$u + $s" | bc; done | sort -n | head -1)
  echo "$arm: best cpu $best s"
done
echo "logs: $out"
