// "What to watch" for each step of the shipped lessons: the scenario's own notes say what a step does; these say
// where to look while it happens. Keyed by scenario name, then step index ('*' for any step).
const HINTS: Record<string, Record<string, string>> = {
  'broker-failure-rf3': {
    '*': 'Watch the crashed broker turn red, then (after broker.session.timeout.ms) fenced: its partitions get new leaders from their ISR in the partition grid, and the log says why.',
  },
  'isr-shrink-acks': {
    '*': 'Watch the partition cell: its border turns dashed when a follower leaves the ISR (hover for replicas and ISR), and the producer panel: acks=all keeps being acknowledged while the ISR has min.insync.replicas members, and collects produceErrors once it has fewer.',
  },
  'acks1-leader-loss': {
    '*': 'acks=1: the leader answers before its followers have the records. When it crashes, a follower that had not caught up becomes leader, and what only the old leader had is gone: compare sent with acknowledged and lost in the workloads panel.',
  },
  'bend-ingest-partition-expansion': {
    '*': 'Watch the consumer group panel: adding partitions makes the group rebalance (purple markers), and the Lake panel keeps counting rows without gaps.',
  },
  'automq-self-balancing-5-brokers': {
    '*': 'Watch broker 2: every partition is moved there (one colour fills the grid). Then the balancer (panel on the right) sees broker 2 outside the band and moves partitions off it in batches: the grid gets its colours back.',
  },
  'kraft-flush': {
    '*': 'Watch the controllers on top: their Raft role, epoch and high watermark. A crashed leader loses what it had not flushed; the flush rule (KAFKA-10533) keeps a record from counting as committed before it was flushed.',
  },
};

export function hintFor(scenario: string, step: number): string {
  const h = HINTS[scenario];
  return h?.[String(step)] ?? h?.['*'] ?? '';
}
