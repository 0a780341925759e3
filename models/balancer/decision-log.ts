/**
 * The balancer's decisions as log lines a learner can read next to the tools' output, one trace event at a
 * time: what each detect saw, the band, which brokers violate it, each move taken and its score, what was
 * undone or could not be fixed, and each batch as it executes. AutoMQ logs similar facts at INFO from the
 * controller ("Broker status", "expected dist bound", "Total actions num ... split to N batches"); the wording
 * here is kafkasim's own.
 */
import type { TraceEvent } from '../sim/index.ts';

const PREFIX = '[AutoBalancer]';

/** MB/s as kafka-producer-perf-test prints it (bytes / 1024 / 1024). */
const mb = (bytesPerSec: number): string => `${(bytesPerSec / 1048576).toFixed(2)} MB/s`;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(3)}s`;

interface BrokerLine {
  brokerId: number;
  bytesIn: number;
  bytesOut: number;
  partitions: number;
  outOfDate?: string;
  slow: boolean;
}

interface MoveLine {
  topic: string;
  partition: number;
  srcBrokerId: number;
  destBrokerId: number;
}

/** The lines for one `balancer.*` trace event (none for events that add nothing a reader needs). */
export function decisionLogLines(e: TraceEvent): string[] {
  switch (e.kind) {
    case 'balancer.detect': {
      if (e.skipped) return [`${PREFIX} detect #${e.sequence} at ${seconds(e.t)}: skipped (${e.skipped})`];
      const brokers = (e.brokers as BrokerLine[]).map(
        (b) =>
          `${PREFIX}   broker ${b.brokerId}: in ${mb(b.bytesIn)}, out ${mb(b.bytesOut)}, ${b.partitions} partitions` +
          (b.outOfDate ? ` (ineligible: ${b.outOfDate})` : '') +
          (b.slow ? ' (slow)' : ''),
      );
      return [
        `${PREFIX} detect #${e.sequence} at ${seconds(e.t)}: goals ${(e.goals as string[]).join(', ')}`,
        ...brokers,
      ];
    }
    case 'balancer.band': {
      const band = e.band as { avg?: number; lowerBound?: number; upperBound?: number };
      if (band.avg === undefined)
        return [`${PREFIX}   ${e.goal}: eligible brokers ${(e.eligibleBrokers as number[]).join(', ')}`];
      const network = String(e.goal).startsWith('Network');
      const v = (x: number) => (network ? mb(x) : x.toFixed(2));
      return [
        `${PREFIX}   ${e.goal}: average ${v(band.avg)}, band [${v(band.lowerBound ?? 0)}, ${v(band.upperBound ?? 0)}]`,
      ];
    }
    case 'balancer.violation':
      return [
        `${PREFIX}   ${e.goal}: broker ${e.brokerId} is ${e.need === 'less' ? 'above' : 'below'} the band: it needs ${e.need} load`,
      ];
    case 'balancer.skip-broker':
      return [`${PREFIX}   ${e.goal}: broker ${e.brokerId} left alone: ${e.reason}`];
    case 'balancer.candidates': {
      if (e.chosen === null) return [];
      return [
        `${PREFIX}   ${e.goal}: move ${e.topic}-${e.partition} from broker ${e.srcBrokerId} to ${e.chosen} (score ${(e.score as number).toFixed(4)})`,
      ];
    }
    case 'balancer.trivial':
      return [
        `${PREFIX}   ${e.goal}: broker ${e.brokerId}'s change is trivial, ${(e.undone as MoveLine[]).length} move(s) undone`,
      ];
    case 'balancer.balance-failed':
      return [`${PREFIX}   ${e.goal}: broker ${e.brokerId} stays outside the band (${e.reason})`];
    case 'balancer.plan': {
      const batches = e.batches as string[][];
      return [`${PREFIX}   ${e.moves} move(s) in ${batches.length} batch(es)`];
    }
    case 'balancer.execute': {
      const moves = e.moves as MoveLine[];
      const skipped = e.skipped as MoveLine[];
      return [
        `${PREFIX} batch ${(e.batch as number) + 1}: AlterPartitionReassignments for ${moves.map((m) => `${m.topic}-${m.partition} (${m.srcBrokerId} -> ${m.destBrokerId})`).join(', ') || 'nothing'}` +
          (skipped.length > 0 ? `; ${skipped.length} skipped (destination not active)` : ''),
      ];
    }
    case 'balancer.failover':
      return [
        `${PREFIX} ${e.controller} is the active controller at ${seconds(e.t)}: the balancer starts over there (empty model, next detect on its loop)`,
      ];
    case 'balancer.execution-stopped':
      return [`${PREFIX} execution stopped with ${e.batchesLeft} batch(es) left: ${e.reason}`];
    default:
      return [];
  }
}
