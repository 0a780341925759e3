#!/usr/bin/env bash
# Checks the built package (dist/) on another Node.js than the one the suite runs on: the CLI's help, version and
# list, a shipped scenario run to its verdict, the narrated demo, and the library imported and run. CI runs it on
# Node 22 (.ci/run); the whole suite runs on the machine's Node 20. Usage: scripts/node-smoke.sh /path/to/node
set -euo pipefail
cd "$(dirname "$0")/.."
NODE=${1:?usage: scripts/node-smoke.sh /path/to/node}
BIN=dist/src/cli/bin.js
echo "node-smoke: $("$NODE" --version)"
"$NODE" "$BIN" --version >/dev/null
"$NODE" "$BIN" --help | grep -q '^Usage: kafkasim <command>'
"$NODE" "$BIN" list | grep -q 'broker-failure-rf3'
"$NODE" "$BIN" run broker-failure-rf3 --quiet | grep -qx 'PASSED: broker-failure-rf3'
"$NODE" "$BIN" demo | grep -q 'Nothing acknowledged was lost.'
"$NODE" --input-type=module -e "
import { createCluster, assignors } from './dist/src/index.js';
const c = createCluster({ seed: 1, brokers: 3 });
c.admin.createTopic({ name: 't', partitions: 3, replicationFactor: 3 });
const perf = c.producerPerfTest({ topic: 't', numRecords: 2000, throughput: 1000, recordSize: 100 });
c.runUntil(() => perf.summary !== undefined, { timeout: '1m' });
const r = c.deliveryReport(perf.workload.producer.id);
if (r.acknowledged !== 2000 || r.lost !== 0) throw new Error('delivery: ' + JSON.stringify(r));
if (Object.keys(assignors.range.assign({ partitionsPerTopic: { t: 3 }, members: [{ memberId: 'a', topics: ['t'] }] })).length !== 1) throw new Error('assignors');
"
echo "node-smoke: ok on $("$NODE" --version)"
