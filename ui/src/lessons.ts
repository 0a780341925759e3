// "What to watch" beside each lesson step: the scenario's own notes say what a step does; these say where to look
// while it happens. A step gets the hint written for it in its shipped lesson (by step index), else the hint for
// its kind of action (so any scenario served as a lesson has one for every step), else its lesson's overview.
/** What to watch in each kind of step (the scenario language's step actions). */
const BY_ACTION: Record<string, string> = {
  createTopic:
    'A new block of cells in the partition grid, one per partition, coloured by the broker that leads it (hover a cell for its replicas and ISR).',
  alterTopic:
    'New cells at the end of the topic in the partition grid; a consumer group on the topic rebalances to take them (purple markers on the timeline, the group panel).',
  deleteTopic: 'The topic leaves the partition grid; its groups lose their partitions.',
  reassign:
    'The moved cells get a diagonal stripe while their reassignment is in flight, and show in the "moving" list under the grid; then they take the colour of their new leader.',
  start: 'The clients appear under the brokers; the workloads panel counts what they send and receive.',
  stop: 'The workload says stopped; compare its sent, acknowledged and lost counts in the workloads panel.',
  crashBroker:
    'The broker turns red and says "crashed". Its followers stop copying from it at once; the controller fences it after broker.session.timeout.ms without a heartbeat, and only then do its partitions get new leaders from their ISR (the log says so, each line with a moment you can go back to).',
  restartBroker:
    'The broker comes back, registers, is unfenced; its replicas catch up and rejoin the ISR (dashed cell borders turn solid). It leads nothing at first: leadership comes back to it by a preferred-leader election or the balancer.',
  crashController:
    'The controllers on top: if the active one crashed, the others hold an election (a new epoch, one of them "leader (active)"). Brokers keep serving with the metadata they have.',
  restartController:
    "The controller rejoins the quorum as a follower and catches up: its high watermark reaches the leader's.",
  partition:
    'The caption under the cluster names the sides; cut links are dashed. A broker cut off from the active controller is fenced after its session times out.',
  isolate:
    'The isolated node is drawn dashed with all its links cut. An isolated broker does not know it was fenced: it says "fenced" only once the controller decided so.',
  dropOutbound:
    "Only one direction is cut: the followers stop receiving the leader's data but the leader still hears from them. Watch the ISR in the cell's tooltip: a follower leaves it after replica.lag.time.max.ms.",
  heal: 'Every link is whole again: followers catch up and rejoin the ISR (cell borders turn solid), fenced brokers are unfenced.',
  slowBroker:
    'The broker says "slow +N ms": every message to and from it takes that much longer. Watch its followers fall behind and the producers\' latency grow.',
  requestFault:
    'The chosen requests fail with the chosen error: watch the client retry in the log and the workloads panel.',
  waitUntil:
    'The lesson waits for a condition of the cluster (its words are in the step line). Play on and watch the view until it holds; the step says "(reached)" when it does.',
  print: 'The step prints what the command would (under "output"): compare it with what the views show.',
  produce: 'Records flow: traffic dots along the links, the Lake panel and group lag count them.',
  lakeOutage: 'The Lake panel counts ingest errors while the Lake is down; rows resume after it.',
  crashIngest:
    'The ingest service restarts: its group rebalances, and the Lake panel shows whether rows were lost or repeated.',
  run: 'The simulation just runs on: watch the views settle.',
  verifiableProducer:
    "Kafka's VerifiableProducer writes to the Raft test server's log (__cluster_metadata-0): each record is acknowledged once a majority of the voters has it; the controllers on top show the leader, its epoch and the high watermark moving.",
  producerPerfTest:
    "kafka-producer-perf-test against the Raft test server: its lines give records/s and latency; the controllers' high watermark shows the log growing.",
};

/** Each shipped lesson: an overview ('*') and hints for its key steps (by step index). */
export const BY_LESSON: Record<string, Record<string, string>> = {
  'broker-failure-rf3': {
    '*': 'Watch the crashed broker turn red ("crashed"), then (after broker.session.timeout.ms) fenced: its partitions get new leaders from their ISR in the partition grid, and the log says why.',
    '0': 'Every cell has a solid border: each partition has its three replicas in sync. Note which broker leads orders-0 (hover it).',
    '1': 'The broker that led orders-0 is down. For a few seconds nothing else changes: the controller has not noticed yet. Watch for "fenced" and the leader changes in the log.',
    '2': 'The cells it led now show other leaders, chosen from the ISR: no acknowledged record is lost with RF 3 and acks=all.',
    '5': "Watch the restarted broker catch up: its partitions' borders turn solid once it is back in every ISR.",
  },
  'isr-shrink-acks': {
    '*': 'Watch the partition cell: its border turns dashed when a follower leaves the ISR (hover for replicas and ISR), and the producer panel: acks=all keeps being acknowledged while the ISR has min.insync.replicas members, and collects produceErrors once it has fewer.',
    '1': "Broker 3 stops receiving its leader's data but is still in the ISR: for replica.lag.time.max.ms (30 s) the leader waits for it before acknowledging acks=all.",
    '2': 'Broker 3 left the ISR (dashed border): acks=all is acknowledged again by the two that remain, since min.insync.replicas=2.',
    '4': 'Now broker 2 falls behind too: in 30 s the ISR will be the leader alone.',
    '5': 'ISR [1] is below min.insync.replicas: the workloads panel shows NOT_ENOUGH_REPLICAS errors; nothing is acknowledged that could be lost.',
    '7': "Healed: the followers catch up, rejoin the ISR, and the producer's retries succeed.",
  },
  'acks1-leader-loss': {
    '*': 'acks=1: the leader answers before its followers have the records. When it crashes, a follower that had not caught up becomes leader, and what only the old leader had is gone: compare sent with acknowledged and lost in the workloads panel.',
    '1': 'Broker 1 still acknowledges every record (acks=1), but its followers no longer get them: they fall behind while still in the ISR.',
    '2': 'Broker 1 is gone with 3 seconds of records only it had; watch which follower the controller elects.',
    '5': "The new leader's log lacks what broker 1 acknowledged after the cut: the delivery report will count them as lost.",
  },
  'bend-ingest-partition-expansion': {
    '*': 'Watch the consumer group panel: adding partitions makes the group rebalance (purple markers), and the Lake panel keeps counting rows without gaps.',
    '2': 'Four workers, two partitions: the group panel shows two members with a partition each and two with none.',
    '8': 'Eight partitions now: the group rebalances (a purple marker) and every worker gets two. The Lake rows keep counting through the rebalance.',
  },
  'automq-self-balancing-5-brokers': {
    '*': 'Watch broker 2: every partition is moved there (one colour fills the grid). Then the balancer (panel on the right) sees broker 2 outside the band and moves partitions off it in batches: the grid gets its colours back.',
    '2': 'All 16 partitions are being moved to broker 2: striped cells while the moves are in flight, listed under the grid.',
    '5': 'The load starts: broker 2 carries all of it. The balancer panel shows it outside the band; its decisions follow, each with its reason.',
  },
  'kraft-flush': {
    '*': 'Watch the controllers on top: their Raft role, epoch and high watermark. A crashed leader loses what it had not flushed; the flush rule (KAFKA-10533) keeps a record from counting as committed before it was flushed.',
    '0': 'The active controller is down: the other two elect a leader (the epoch goes up by one).',
    '6': 'All three lose power: each keeps only what it had flushed to disk. A leader counts a record as committed only once it flushed it itself (KAFKA-10533), so no committed record is lost.',
    '12': 'A leader again, and the high watermark did not go backwards: nothing committed was lost.',
  },
};

/** The hint for the step just run (or the lesson's overview before the first). */
export function hintFor(lesson: {
  scenario: string;
  steps: readonly { action: string }[];
  next: number;
}): string {
  const own = BY_LESSON[lesson.scenario.replace(/\.ya?ml$/, '')];
  const index = lesson.next - 1;
  const step = lesson.steps[index];
  if (!step) return own?.['*'] ?? '';
  return own?.[String(index)] ?? BY_ACTION[step.action] ?? own?.['*'] ?? '';
}
