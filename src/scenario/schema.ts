// The JSON Schema of a scenario file. It is built here (so that config keys and defaults come from the models
// themselves) and shipped as schema/scenario.schema.json for editors (`# yaml-language-server: $schema=...`);
// a test keeps the file equal to this object, and `npx tsx src/scenario/emit-schema.ts` rewrites it.
// Every `description` is user documentation; a `title` on a definition is the phrase error messages use for
// "expected ...".
import { brokerDefaults } from '../../models/broker/index.ts';
import { consumerConfig, groupConsumerConfig, producerConfig } from '../../models/clients/index.ts';
import { DEFAULT_CONTROLLER_CONFIG, TOPIC_CONFIGS } from '../../models/controller/index.ts';
import { INGEST_DEFAULTS } from '../../models/lake/index.ts';
import { Errors } from '../../models/protocol/index.ts';
import { DEFAULT_QUORUM_CONFIG } from '../../models/raft/index.ts';
import { FAULT_APIS } from '../cluster/request-faults.ts';
import { CONDITION_KINDS, METRIC_KINDS, STEP_ACTIONS } from './types.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

/**
 * The id the loader registers the schema under in ajv (so that a union's branches can be compiled by pointer).
 * The shipped file has no $id: editors resolve its `#/definitions/...` against the file itself.
 */
export const SCENARIO_SCHEMA_ID = 'kafkasim:scenario';

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const withDescription = (s: Schema, description: string): Schema => ({ ...s, description });

/** Exactly one of `keys` must be present (the editor reports it too; the loader turns it into one message). */
const exactlyOne = (keys: readonly string[]): Json[] =>
  keys.map((k) => ({ required: [k], properties: { [k]: true } }));

const object = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
  ...extra,
});

function typeOf(value: unknown): Schema {
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'number') return { type: 'number' };
  return { type: 'string' };
}

function defaultText(value: unknown): string {
  return value === Number.POSITIVE_INFINITY ? 'unlimited' : JSON.stringify(value);
}

function clusterConfigProperties(): Record<string, Schema> {
  const props: Record<string, Schema> = {};
  for (const [key, value] of Object.entries(brokerDefaults)) {
    const infinite = value === Number.POSITIVE_INFINITY;
    props[key] = withDescription(
      typeOf(value),
      `Broker setting${key.startsWith('kafkasim.') ? ' (kafkasim model parameter)' : ''}; default ${defaultText(value)}.${infinite ? ' Any number; larger than the traffic means unthrottled.' : ''}`,
    );
  }
  for (const [key, value] of Object.entries(DEFAULT_CONTROLLER_CONFIG)) {
    props[key] = withDescription(
      typeOf(value),
      `Controller setting${key.startsWith('kafkasim.') ? ' (kafkasim model parameter)' : ''}; default ${defaultText(value)}.`,
    );
  }
  props['kafkasim.tool.startup.ms'] = withDescription(
    ref('startupTime'),
    "kafkasim model parameter: how long an operator's tool (kafka-topics.sh, kafka-reassign-partitions.sh) takes from the command typed to its request leaving, drawn per tool step from the seed; default lognormal, median 1500 ms, sigma 0.35, at least 500 ms (users report 1-2 s for Kafka's shell tools on an ordinary machine). 0 turns it off.",
  );
  props['kafkasim.client.startup.ms'] = withDescription(
    ref('startupTime'),
    "kafkasim model parameter: how long a scenario client's process takes from its start to the creation of its Kafka client (whose metadata refresh timer counts from then), drawn per client process from the seed; default lognormal, median 300 ms, sigma 0.5. 0 turns it off.",
  );
  const QUORUM_NOTES: Record<string, string> = {
    'kafkasim.raft.flush.enable':
      ' false removes the KAFKA-10533 flush guarantees (the leader counts unflushed records toward the high watermark, followers do not flush), so committed metadata can be lost when a majority crashes.',
    'kafkasim.raft.os.writeback.ms':
      ' With flush.enable false: how often the OS flusher wakes (vm.dirty_writeback_centisecs, 500 = 5 s).',
    'kafkasim.raft.os.dirty.expire.ms':
      ' With flush.enable false: how long data stays dirty in the page cache before the flusher writes it back (vm.dirty_expire_centisecs, 3000 = 30 s); a crash loses what is younger.',
  };
  for (const [key, value] of Object.entries(DEFAULT_QUORUM_CONFIG)) {
    if (key === 'controller.quorum.voters' || key === 'controller.quorum.bootstrap.servers') continue;
    props[key] = withDescription(
      typeOf(value),
      `KRaft metadata quorum setting${key.startsWith('kafkasim.') ? ' (kafkasim model parameter)' : ''}; default ${defaultText(value)}. Needs cluster.controllers >= 2.${QUORUM_NOTES[key] ?? ''}`,
    );
  }
  return props;
}

function clientConfigSchema(
  java: Record<string, unknown>,
  librdkafka: Record<string, unknown>,
  overrides: Record<string, Schema>,
  what: string,
): Schema {
  const props: Record<string, Schema> = {};
  for (const [key, value] of Object.entries(java)) {
    props[key] = withDescription(
      overrides[key] ?? (value === null ? { type: ['string', 'null'] } : typeOf(value)),
      `Default ${defaultText(value)} (Java), ${defaultText(librdkafka[key])} (librdkafka).`,
    );
  }
  props['topic.metadata.refresh.interval.ms'] = withDescription(
    { type: 'number' },
    "librdkafka's name for metadata.max.age.ms (sets the same thing).",
  );
  return {
    type: 'object',
    title: `${what} settings`,
    description: `${what} settings with the real client's key spelling; unknown keys are errors.`,
    properties: props,
    additionalProperties: false,
  };
}

const conditionDescriptions: Record<(typeof CONDITION_KINDS)[number], string> = {
  leadersPerBroker:
    'Partition leaders per broker (of `topic`, or of every topic): `equals` maps broker id -> count (brokers not listed must have 0), `maxSkew` bounds max - min over all brokers of the cluster.',
  replicasPerBroker: 'Like leadersPerBroker, counting replicas instead of leaders.',
  ledBy: 'Every partition of `topic` (or the listed `partitions`) is led by `broker`.',
  leaderFromIsr:
    'For each partition: the leader now is a live broker that was in the ISR when step `since` ran (use it after crashing a leader).',
  isr: 'Each listed partition (default all) has an ISR whose `size` matches, that `includes` / `excludes` a broker.',
  offsets:
    "Sum over the listed partitions (default all) of the authoritative log's high watermark / log end offset.",
  reassignments: 'Number of partitions (of `topic`, or all) with a reassignment in progress.',
  partitionCount: 'Number of partitions of `topic`.',
  delivery:
    "Exact delivery accounting of a producer's records: sent, acknowledged, failed, lost (acknowledged but in no log) and duplicated (extra copies in the logs).",
  producerErrors:
    'Produce errors a producer saw (each retried or failed batch counts), by Kafka error name (`error`) or all of them.',
  consumer: 'Records a consumer has consumed, and its lag (high watermark - position, summed).',
  group:
    "A consumer group's members that are Stable: `assigned` distinct partitions owned (each by exactly one member, else the count is -1), `perMember` partitions held by every member, `members` in the group.",
  perf: "A perf producer's state: `done` (all records completed), `completed` records, the lowest progress-window rate and the highest window max latency.",
  timing:
    'Virtual time from when step `from` started (default: the start of the timeline; `fromPoint: applied`: when its request reached the controller, after the tool started up) to when step `to` finished (for a waitUntil: when its condition held), within `min`..`max`.',
  lakeRows:
    'Rows a Lake table holds now (`database.table`, default database `default`), counted in the model, without SQL (usable in waitUntil).',
  groupLag:
    'kafka-consumer-groups --describe LAG of a group, summed over the listed partitions (default all) of `topic` (default every topic); a partition without a committed offset counts its log end offset.',
  ingest:
    "An ingest service's metrics (bend_ingest_kafka_ingest_rows_total, ..._ingest_errors_total, ..._consume_rows_total), its lost batches, and its workers' current assignment: `assigned` distinct partitions, the fewest and most per worker.",
  invariants:
    "`held`: no model invariant was violated during the run (the run stops at the first violation). With cluster.controllers >= 2 these include the Raft checks of Kafka's RaftEventSimulationTest (MonotonicHighWatermark, MonotonicEpoch, MajorityReachedHighWatermark, SingleLeader), and with metadataLoad the ReplicatedCounter check.",
  quorum:
    'The KRaft metadata quorum now: `leader` (a controller is active), `leaderChanges` (times the active controller changed after the first election), `epoch` (the highest Raft epoch among running controllers), `unavailableMs` (virtual ms without an active controller since the first election).',
  metadataLoad:
    "The metadata append load (cluster.metadataLoad): `exact` means every controller read the committed counter as exactly 1, 2, 3, ... and no acknowledged value is missing from the active controller's committed log; `committed` is the committed counter value, `acknowledged` the appends acknowledged as committed.",
  metadataConsistent:
    "`true`: an active controller exists and every running broker and controller holds exactly the active controller's committed metadata image (use it in waitUntil to wait for convergence).",
  all: 'Every condition in the list holds.',
  any: 'At least one condition in the list holds.',
  not: 'The condition does not hold.',
};

function conditionKindSchemas(): Record<string, Schema> {
  const topic = ref('topicName');
  const partitions = ref('partitionList');
  const cmp = ref('comparison');
  const perBroker = object(
    {
      topic: withDescription(topic, 'Only this topic (default: every topic).'),
      equals: ref('brokerCounts'),
      maxSkew: { type: 'integer', minimum: 0, description: 'Largest allowed max - min over all brokers.' },
    },
    [],
    { anyOf: exactlyOne(['equals', 'maxSkew']) },
  );
  return {
    leadersPerBroker: perBroker,
    replicasPerBroker: perBroker,
    ledBy: object({ topic, broker: ref('brokerId'), partitions }, ['topic', 'broker']),
    leaderFromIsr: object(
      { topic, since: withDescription(ref('label'), 'The label of the step whose ISR counts.'), partitions },
      ['topic', 'since'],
    ),
    isr: object(
      {
        topic,
        partitions,
        size: withDescription(cmp, 'ISR size of each partition.'),
        includes: withDescription(ref('brokerId'), 'A broker every ISR must contain.'),
        excludes: withDescription(ref('brokerId'), 'A broker no ISR may contain.'),
      },
      ['topic'],
      { anyOf: exactlyOne(['size', 'includes', 'excludes']) },
    ),
    offsets: object({ topic, partitions, highWatermark: cmp, logEndOffset: cmp }, ['topic'], {
      anyOf: exactlyOne(['highWatermark', 'logEndOffset']),
    }),
    reassignments: object({ topic: withDescription(topic, 'Only this topic (default: all).'), count: cmp }, [
      'count',
    ]),
    partitionCount: object({ topic, count: cmp }, ['topic', 'count']),
    delivery: object(
      {
        producer: ref('clientName'),
        sent: cmp,
        acknowledged: cmp,
        failed: cmp,
        lost: cmp,
        duplicated: cmp,
      },
      ['producer'],
      { anyOf: exactlyOne(['sent', 'acknowledged', 'failed', 'lost', 'duplicated']) },
    ),
    producerErrors: object(
      {
        producer: ref('clientName'),
        error: ref('errorName'),
        count: cmp,
      },
      ['producer', 'count'],
    ),
    consumer: object({ name: ref('clientName'), consumed: cmp, lag: cmp }, ['name'], {
      anyOf: exactlyOne(['consumed', 'lag']),
    }),
    group: object({ name: ref('clientName'), assigned: cmp, perMember: cmp, members: cmp }, ['name'], {
      anyOf: exactlyOne(['assigned', 'perMember', 'members']),
    }),
    perf: object(
      {
        name: ref('clientName'),
        done: { type: 'boolean', description: 'True once every record is acknowledged or failed.' },
        completed: withDescription(cmp, 'Records acknowledged or failed so far.'),
        minRecordsPerSec: withDescription(cmp, 'The lowest records/sec of a progress line (5 s window).'),
        maxLatencyMs: withDescription(
          cmp,
          'The highest latency of a record (the summary line once done, else the progress lines).',
        ),
      },
      ['name'],
      { anyOf: exactlyOne(['done', 'completed', 'minRecordsPerSec', 'maxLatencyMs']) },
    ),
    timing: object(
      {
        from: withDescription(ref('label'), 'Label of the step the clock starts at (its start).'),
        fromPoint: ref('stepPoint'),
        to: withDescription(ref('label'), 'Label of the step the clock stops at (its end).'),
        max: ref('duration'),
        min: ref('duration'),
      },
      ['to'],
      { anyOf: exactlyOne(['max', 'min']) },
    ),
    lakeRows: object(
      {
        table: { type: 'string', minLength: 1, description: 'The table, `database.table` or `table`.' },
        count: cmp,
      },
      ['table', 'count'],
    ),
    groupLag: object(
      {
        group: { type: 'string', minLength: 1, description: 'The group.id.' },
        topic: withDescription(topic, 'Only this topic (default: every topic the group has offsets for).'),
        partitions,
        lag: cmp,
      },
      ['group', 'lag'],
    ),
    ingest: object(
      {
        name: ref('clientName'),
        rowsTotal: withDescription(cmp, 'bend_ingest_kafka_ingest_rows_total'),
        errorsTotal: withDescription(cmp, 'bend_ingest_kafka_ingest_errors_total'),
        consumeRowsTotal: withDescription(cmp, 'bend_ingest_kafka_consume_rows_total'),
        lostBatches: withDescription(
          cmp,
          'Batches the service gave up on (their records are not in the Lake).',
        ),
        lostRecords: withDescription(cmp, 'Records in the batches the service gave up on.'),
        assigned: withDescription(cmp, 'Distinct partitions in the workers’ current assignment.'),
        minPerWorker: withDescription(cmp, 'The fewest partitions a worker holds.'),
        maxPerWorker: withDescription(cmp, 'The most partitions a worker holds.'),
      },
      ['name'],
      {
        anyOf: exactlyOne([
          'rowsTotal',
          'errorsTotal',
          'consumeRowsTotal',
          'lostBatches',
          'lostRecords',
          'assigned',
          'minPerWorker',
          'maxPerWorker',
        ]),
      },
    ),
    invariants: { type: 'string', enum: ['held'], title: "'held'" },
    quorum: object(
      {
        leader: { type: 'boolean', description: 'A controller is active (true) or none is (false).' },
        leaderChanges: cmp,
        epoch: cmp,
        unavailableMs: cmp,
      },
      [],
      { anyOf: exactlyOne(['leader', 'leaderChanges', 'epoch', 'unavailableMs']) },
    ),
    metadataLoad: object(
      { exact: { type: 'boolean', enum: [true], title: 'true' }, committed: cmp, acknowledged: cmp },
      [],
      { anyOf: exactlyOne(['exact', 'committed', 'acknowledged']) },
    ),
    metadataConsistent: { type: 'boolean', enum: [true], title: 'true' },
    all: { type: 'array', items: ref('condition'), minItems: 1 },
    any: { type: 'array', items: ref('condition'), minItems: 1 },
    not: ref('condition'),
  };
}

function metricKindSchemas(): Record<(typeof METRIC_KINDS)[number], Schema> {
  const name = ref('clientName');
  return {
    delivery: object(
      {
        producer: name,
        field: { type: 'string', enum: ['sent', 'acknowledged', 'failed', 'lost', 'duplicated'] },
      },
      ['producer', 'field'],
    ),
    producerErrors: object({ producer: name, error: ref('errorName') }, ['producer']),
    leadersPerBroker: object(
      { topic: ref('topicName'), stat: { type: 'string', enum: ['max', 'min', 'skew'] } },
      ['stat'],
    ),
    consumer: object({ name, field: { type: 'string', enum: ['consumed', 'lag'] } }, ['name', 'field']),
    perf: object(
      {
        name,
        field: {
          type: 'string',
          enum: ['completed', 'recordsPerSec', 'avgLatencyMs', 'maxLatencyMs', 'minRecordsPerSec'],
        },
      },
      ['name', 'field'],
    ),
    offsets: object(
      {
        topic: ref('topicName'),
        partitions: ref('partitionList'),
        field: { type: 'string', enum: ['highWatermark', 'logEndOffset'] },
      },
      ['topic', 'field'],
    ),
    timing: object({ from: ref('label'), fromPoint: ref('stepPoint'), to: ref('label') }, ['to']),
    quorum: withDescription(
      object({ field: { type: 'string', enum: ['leaderChanges', 'unavailableMs', 'epoch'] } }, ['field']),
      'The metadata quorum: active-controller changes, virtual ms without an active controller, the Raft epoch.',
    ),
    metadataLoad: withDescription(
      object({ field: { type: 'string', enum: ['committed', 'acknowledged', 'appended', 'abandoned'] } }, [
        'field',
      ]),
      'The metadata append load: the committed counter value, appends acknowledged, made, abandoned by a failover.',
    ),
    errorWindow: withDescription(
      object(
        { producer: name, field: { type: 'string', enum: ['windowMs', 'firstMs', 'lastMs', 'maxAckGapMs'] } },
        ['producer'],
      ),
      'How long a producer saw produce errors: windowMs (default) from its first error to its last, or the timeline time of the first / last error (null when it saw none); maxAckGapMs, the longest time one of its partitions went between two acknowledgements, errors or not (a request parked on a fenced leader shows no error until its timeout).',
    ),
  };
}

function stepActionSchemas(): Record<(typeof STEP_ACTIONS)[number], Schema> {
  const names = {
    anyOf: [ref('clientName'), { type: 'array', items: ref('clientName'), minItems: 1 }],
    title: 'a client name or a list of client names',
  };
  return {
    createTopic: withDescription(
      ref('topic'),
      'kafka-topics.sh --create: prints `Created topic <name>.` (or the tool’s error line).',
    ),
    alterTopic: withDescription(
      object({ name: ref('topicName'), partitions: { type: 'integer', minimum: 1 } }, ['name', 'partitions']),
      'kafka-topics.sh --alter --partitions N (CreatePartitions).',
    ),
    deleteTopic: withDescription(ref('topicName'), 'kafka-topics.sh --delete --topic <name>.'),
    reassign: ref('reassign'),
    start: withDescription(names, 'Starts clients declared under `clients` (workloads begin producing).'),
    stop: withDescription(
      names,
      'Stops clients: workloads stop generating (records already handed over still complete); consumers stop.',
    ),
    crashBroker: withDescription(
      ref('brokerSelector'),
      'Crashes a broker: it loses everything not on disk and receives nothing until restarted.',
    ),
    restartBroker: withDescription(ref('brokerSelector'), 'Starts a crashed broker again.'),
    crashController: withDescription(
      ref('controllerAction'),
      'Crashes a controller: it keeps only what its Raft log flushed (and its quorum state); with a quorum the others elect a new leader, which becomes the active controller.',
    ),
    restartController: withDescription(
      ref('controllerAction'),
      'Starts a controller again (crashing it first if it is up); it rejoins the quorum as a follower (a former leader restarts Resigned).',
    ),
    partition: {
      type: 'array',
      items: { type: 'array', items: ref('nodeRef'), minItems: 1 },
      minItems: 1,
      title: 'a list of groups of nodes',
      description:
        'Splits the network: nodes talk only within their group; nodes not listed form one more group together.',
    },
    isolate: withDescription(ref('nodeRef'), 'Drops all traffic to and from a node until `heal`.'),
    dropOutbound: withDescription(
      object(
        {
          from: ref('nodeRef'),
          to: {
            anyOf: [ref('nodeRef'), { type: 'array', items: ref('nodeRef'), minItems: 1 }],
            title: 'a node or a list of nodes',
          },
        },
        ['from', 'to'],
      ),
      'Drops messages from `from` to `to` (one direction only), e.g. a leader to its followers.',
    ),
    heal: {
      type: 'boolean',
      enum: [true],
      title: 'true',
      description: 'Removes partitions, isolation and outbound drops (not slow brokers or random drops).',
    },
    slowBroker: withDescription(
      object({ broker: ref('brokerSelector'), delay: ref('duration') }, ['broker', 'delay']),
      'Adds `delay` to every message to and from the broker; 0ms removes it.',
    ),
    requestFault: withDescription(
      object(
        {
          api: { type: 'string', enum: [...FAULT_APIS], description: 'The request type (Kafka API name).' },
          topic: ref('topicName'),
          partition: { type: 'integer', minimum: 0 },
          client: { type: 'string', minLength: 1, description: 'A client name or a real client.id.' },
          broker: { type: 'integer', minimum: 0, description: 'Only requests to this broker.' },
          error: {
            type: 'string',
            enum: Object.keys(Errors).filter((e) => e !== 'NONE'),
            description: 'Answer with this Kafka error (the request is not applied).',
          },
          latency: withDescription(ref('duration'), 'Added before the answer leaves.'),
          dropResponse: { type: 'boolean', description: 'Serve the request but never answer it.' },
          count: {
            type: 'integer',
            minimum: 1,
            description: 'Requests it applies to (default: the rest of the run).',
          },
        },
        ['api'],
      ),
      'A scripted request fault for simulated and real clients alike: e.g. `{api: Produce, topic: orders, partition: 0, error: NOT_LEADER_OR_FOLLOWER, count: 3}`.',
    ),
    waitUntil: ref('waitUntil'),
    print: ref('print'),
    produce: withDescription(
      object(
        {
          topic: ref('topicName'),
          start: { type: 'integer', minimum: 0, description: 'The first sequence number.' },
          count: { type: 'integer', minimum: 1, description: 'How many records.' },
          partitions: {
            type: 'integer',
            minimum: 1,
            description: 'Record with sequence N goes to partition N % partitions.',
          },
          name: withDescription(ref('clientName'), 'Producer client name (default explicit-producer-<n>).'),
          rate: {
            type: 'number',
            exclusiveMinimum: 0,
            description:
              'Records per second, handed to the producer in 10 ms steps (default: all at once, as the Go program does). A paced load keeps ingest batches in flight across a rebalance.',
          },
          invalidJson: {
            type: 'array',
            items: { type: 'integer', minimum: 0 },
            minItems: 1,
            uniqueItems: true,
            description:
              'Sequences whose value is written as broken JSON (cut before its closing brace): a bad record. The ingest batch that holds one cannot be built and is lost whole, as in bend-ingest-kafka; print `ingest-losses` shows which records and why.',
          },
        },
        ['topic', 'start', 'count', 'partitions'],
      ),
      "Starts workflow B's explicit-partition load producer (key key-<N>, JSON value with the sequence); it prints `produced=N remaining=0 failed=0 elapsed=... rate=... msg/s` when done. The step does not wait for it.",
    ),
    lakeOutage: withDescription(
      ref('duration'),
      "Makes the Lake unavailable for this long from now: the sink's loads fail and are retried with backoff (1 s × 2^n, capped at maxRetryDelay, 10 attempts) and the HTTP API refuses connections. The step does not wait for the outage to end.",
    ),
    crashIngest: withDescription(
      object(
        {
          name: ref('clientName'),
          worker: {
            type: 'integer',
            minimum: 0,
            description: 'Only when this worker ingests (default: any).',
          },
          restartAfter: withDescription(
            ref('duration'),
            'Starts the service again after this long (default: it stays down until a `start` step).',
          ),
        },
        ['name'],
      ),
      'Arms a crash of an ingest service right after its next successful ingest and before the offset commit: the rows are in the Lake, the offsets are not committed, so the batch is read again (duplicates unless useReplaceMode). The step does not wait for the crash.',
    ),
    run: withDescription(ref('duration'), 'Runs the simulation for this long.'),
  };
}

/** The scenario JSON Schema (draft-07). */
export function buildScenarioSchema(): Schema {
  const actions = stepActionSchemas();
  const conditions = conditionKindSchemas();
  const conditionProps: Record<string, Schema> = {};
  for (const k of CONDITION_KINDS)
    conditionProps[k] = withDescription(conditions[k]!, conditionDescriptions[k]);
  const metricProps: Record<string, Schema> = metricKindSchemas();
  const java = producerConfig('java') as unknown as Record<string, unknown>;
  const rdkafka = producerConfig('librdkafka') as unknown as Record<string, unknown>;
  const javaConsumer = consumerConfig('java') as unknown as Record<string, unknown>;
  const rdkafkaConsumer = consumerConfig('librdkafka') as unknown as Record<string, unknown>;
  // A group's name is its group.id, so members take no group.id of their own.
  const member = (flavour: 'java' | 'librdkafka', clientId: string): Record<string, unknown> => {
    const { 'group.id': _groupId, ...rest } = groupConsumerConfig(flavour, 'g');
    return { ...rest, 'client.id': clientId };
  };
  const javaMember = member('java', 'consumer-<group>-<n>');
  const rdkafkaMember = member('librdkafka', 'rdkafka');
  const flavour = {
    type: 'string',
    enum: ['java', 'librdkafka'],
    description: "Which client's defaults and behaviour (default java).",
  };
  const autoStart = {
    type: 'boolean',
    description: 'Start when the setup is done (default false: a `start` step starts it).',
  };

  const definitions: Record<string, Schema> = {
    duration: {
      type: 'string',
      pattern: '^\\s*(\\d+(\\.\\d+)?|\\.\\d+)\\s*(ms|s|m|h|d)\\s*$',
      title: "a duration such as '250ms', '5s' or '2m'",
      description: 'Virtual time: a number followed by ms, s, m, h or d.',
    },
    comparison: {
      title: 'a number, or a comparison such as {gt: 0} or {gte: 1, lte: 5}',
      description: 'A number means equal; an object gives bounds that must all hold.',
      anyOf: [
        { type: 'number' },
        {
          type: 'object',
          properties: {
            eq: { type: 'number' },
            ne: { type: 'number' },
            gt: { type: 'number' },
            gte: { type: 'number' },
            lt: { type: 'number' },
            lte: { type: 'number' },
          },
          additionalProperties: false,
          minProperties: 1,
        },
      ],
    },
    topicName: {
      type: 'string',
      pattern: '^[a-zA-Z0-9._-]{1,249}$',
      title: "a topic name (letters, digits, '.', '_', '-')",
    },
    label: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      title: "a step label (letters, digits, '.', '_', '-')",
    },
    stepPoint: {
      type: 'string',
      enum: ['start', 'applied'],
      description:
        "Which moment of step `from`: `start` (default), when it began (for a tool step: the command typed); `applied`, when a tool step's request reached the controller (after the tool's start-up, kafkasim.tool.startup.ms).",
    },
    startupTime: {
      title:
        'a duration, a number of ms, or a distribution such as {kind: lognormal, median: 1500, sigma: 0.35}',
      anyOf: [ref('duration'), { type: 'number', minimum: 0 }, ref('distribution')],
    },
    clientName: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      title: "a client name (letters, digits, '.', '_', '-')",
    },
    errorName: {
      type: 'string',
      pattern: '^[A-Z][A-Z_]*$',
      title: 'a Kafka error name such as NOT_LEADER_OR_FOLLOWER',
    },
    brokerId: { type: 'integer', minimum: 0, title: "a broker id (one of the cluster's brokers)" },
    brokerCounts: {
      type: 'object',
      title: 'a mapping of broker id to count, e.g. {1: 0, 2: 8}',
      propertyNames: { pattern: '^\\d+$' },
      additionalProperties: { type: 'integer', minimum: 0 },
    },
    partitionList: {
      type: 'array',
      items: { type: 'integer', minimum: 0 },
      minItems: 1,
      title: 'a list of partition indices',
      description: 'Only these partitions (default: all of the topic).',
    },
    topicPartition: object({ topic: ref('topicName'), partition: { type: 'integer', minimum: 0 } }, [
      'topic',
      'partition',
    ]),
    brokerSelector: {
      title: 'a broker id, {leaderOf: {topic, partition}} or {brokerOf: <step label>}',
      description:
        'A broker: by id, the one leading a partition when the step runs, or the one an earlier step (by label) acted on.',
      anyOf: [
        ref('brokerId'),
        object({ leaderOf: ref('topicPartition') }, ['leaderOf']),
        object({ brokerOf: ref('label') }, ['brokerOf']),
      ],
    },
    controllerSelector: {
      title: "a controller id (3000, ...), 'active' or {controllerOf: <step label>}",
      description:
        'A controller: by node id (3000 for the first, then 3001, ...), `active` (the Raft leader serving when the step runs), or the one an earlier step (by label) acted on.',
      anyOf: [
        { type: 'integer', minimum: 0 },
        { type: 'string', enum: ['active'] },
        object({ controllerOf: ref('label') }, ['controllerOf']),
      ],
    },
    controllerAction: {
      title: 'a controller selector, or {controller: <selector>, delay: <duration>}',
      description:
        'The controller to act on now, or `{controller, delay}`: act `delay` after the step starts while the next steps run (e.g. to crash the active controller in the middle of the createTopic step that follows); `active` is resolved when it acts.',
      anyOf: [
        ref('controllerSelector'),
        object({ controller: ref('controllerSelector'), delay: ref('duration') }, ['controller', 'delay']),
      ],
    },
    nodeRef: {
      type: ['integer', 'string'],
      title: "a broker id, 'controller', 'controller-<id>' or a client name",
      description:
        "A network node: a broker id, 'controller' (the first controller, 3000), 'controller-<id>' (any controller of the quorum), or the name of a client.",
    },
    configValue: { type: ['string', 'number', 'boolean'], title: 'a string, number or boolean' },
    topic: object(
      {
        name: ref('topicName'),
        partitions: { type: 'integer', minimum: 1, description: 'Default: the controller’s num.partitions.' },
        replicationFactor: {
          type: 'integer',
          minimum: 1,
          description: 'Default: default.replication.factor (1). Shared storage needs 1.',
        },
        configs: {
          type: 'object',
          title: 'a mapping of topic config names to values',
          description: 'Topic configs (Kafka names, e.g. min.insync.replicas); unknown names are errors.',
          properties: Object.fromEntries(
            TOPIC_CONFIGS.map((c) => [c.name, withDescription(ref('configValue'), `Default ${c.default}.`)]),
          ),
          additionalProperties: false,
        },
        assignments: {
          type: 'array',
          title: 'a list of replica lists (one per partition)',
          description:
            'Explicit placement: partition index -> broker ids, first = preferred leader. Replaces partitions/replicationFactor.',
          items: { type: 'array', items: ref('brokerId'), minItems: 1 },
          minItems: 1,
        },
      },
      ['name'],
    ),
    producerConfig: clientConfigSchema(
      java,
      rdkafka,
      {
        acks: { enum: [0, 1, -1, 'all', '0', '1', '-1'], title: "0, 1, -1 or 'all'" },
        partitioner: { type: 'string', enum: ['murmur2_random', 'consistent_random'] },
      },
      'Producer',
    ),
    consumerConfig: clientConfigSchema(
      javaConsumer,
      rdkafkaConsumer,
      {
        'auto.offset.reset': {
          type: 'string',
          enum: ['latest', 'earliest', 'none', 'smallest', 'largest'],
        },
      },
      'Consumer',
    ),
    producer: object(
      {
        name: withDescription(ref('clientName'), 'Client name (its node id on the network).'),
        topic: ref('topicName'),
        rate: { type: 'number', exclusiveMinimum: 0, description: 'Records per second.' },
        recordSize: { type: 'integer', minimum: 0, description: 'Value bytes per record (default 100).' },
        records: {
          type: 'integer',
          minimum: 1,
          description: 'Stop after this many records (default: until stopped).',
        },
        keys: {
          type: 'string',
          enum: ['none', 'sequence'],
          description: "none: keyless (sticky partitioner, default); sequence: key 'key-<n>'.",
        },
        partition: { type: 'integer', minimum: 0, description: 'Send every record to this partition.' },
        flavour,
        config: ref('producerConfig'),
        autoStart,
      },
      ['name', 'topic', 'rate'],
    ),
    consumer: object(
      {
        name: withDescription(ref('clientName'), 'Client name (its node id on the network).'),
        topic: ref('topicName'),
        partitions: ref('partitionList'),
        flavour,
        config: ref('consumerConfig'),
        autoStart,
      },
      ['name', 'topic'],
    ),
    groupConsumerConfig: clientConfigSchema(
      javaMember,
      rdkafkaMember,
      {
        'auto.offset.reset': {
          type: 'string',
          enum: ['latest', 'earliest', 'none', 'smallest', 'largest'],
        },
        'partition.assignment.strategy': {
          anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
          title: "assignor names, e.g. 'range,roundrobin' or [range, cooperative-sticky]",
        },
      },
      'Group member',
    ),
    group: object(
      {
        name: withDescription(
          ref('clientName'),
          'The group.id; its members are named <name>-1, <name>-2, ...',
        ),
        topic: ref('topicName'),
        members: {
          type: 'integer',
          minimum: 1,
          description: 'How many members (consumers in subscribe mode).',
        },
        flavour,
        config: ref('groupConsumerConfig'),
        autoStart,
      },
      ['name', 'topic', 'members'],
    ),
    perfProducer: object(
      {
        name: withDescription(ref('clientName'), 'Client name (default client.id perf-producer-client).'),
        topic: ref('topicName'),
        numRecords: { type: 'integer', minimum: 1, description: '--num-records' },
        throughput: { type: 'number', description: '--throughput in records/s; -1 = unthrottled.' },
        recordSize: { type: 'integer', minimum: 1, description: '--record-size in bytes.' },
        flavour,
        config: withDescription(ref('producerConfig'), '--producer-props'),
        autoStart,
      },
      ['name', 'topic', 'numRecords', 'throughput', 'recordSize'],
    ),
    ingestConfig: {
      type: 'object',
      title: 'bend-ingest-kafka config keys',
      description:
        "The service's JSON config, keys verbatim (bend-ingest-kafka's defaults where absent); unknown keys are errors.",
      properties: {
        ...Object.fromEntries(
          Object.entries(INGEST_DEFAULTS).map(([k, v]) => [
            k,
            withDescription(typeOf(v), `Default ${defaultText(v)}.`),
          ]),
        ),
        databendDSN: withDescription({ type: 'string' }, 'The public repository’s name for lakeDSN.'),
        databendTable: withDescription({ type: 'string' }, 'The public repository’s name for lakeTable.'),
      },
      additionalProperties: false,
    },
    ingest: object(
      {
        name: withDescription(ref('clientName'), 'The service name (its node id on the network).'),
        config: ref('ingestConfig'),
        log: {
          type: 'string',
          enum: ['rebalance', 'all', 'none'],
          description:
            'Which service log lines are printed: rebalance (default: kafka_rebalance, error and fatal lines), all, or none.',
        },
        kafkaConfig: withDescription(
          ref('groupConsumerConfig'),
          "librdkafka settings on top of the service's own (auto.offset.reset=earliest, ...), for what-if variants.",
        ),
        flavour: withDescription(
          flavour,
          "The workers' client library: librdkafka (default: the real service is a Go program on confluent-kafka-go) or java, a what-if of the same service on the Java consumer (its assignors and rebalance timing; the service's settings keep their meaning).",
        ),
        autoStart,
      },
      ['name', 'config'],
    ),
    distribution: {
      title: 'a latency distribution such as {kind: lognormal, median: 0.5, sigma: 0.3}',
      anyOf: [
        object({ kind: { const: 'constant' }, ms: { type: 'number', minimum: 0 } }, ['kind', 'ms']),
        object({ kind: { const: 'uniform' }, min: { type: 'number', minimum: 0 }, max: { type: 'number' } }, [
          'kind',
          'min',
          'max',
        ]),
        object(
          {
            kind: { const: 'normal' },
            mean: { type: 'number' },
            sd: { type: 'number', minimum: 0 },
            min: { type: 'number', minimum: 0 },
          },
          ['kind', 'mean', 'sd'],
        ),
        object(
          { kind: { const: 'exponential' }, mean: { type: 'number' }, min: { type: 'number', minimum: 0 } },
          ['kind', 'mean'],
        ),
        object(
          {
            kind: { const: 'lognormal' },
            median: { type: 'number', exclusiveMinimum: 0 },
            sigma: { type: 'number', minimum: 0 },
            min: { type: 'number', minimum: 0 },
          },
          ['kind', 'median', 'sigma'],
        ),
      ],
    },
    reassign: {
      ...object(
        {
          json: {
            type: ['object', 'string'],
            title: 'the reassignment JSON (a mapping, or the JSON text)',
            description:
              "Kafka's reassignment JSON inline: {version: 1, partitions: [{topic, partition, replicas: [..]}]}.",
          },
          file: { type: 'string', description: 'A reassignment JSON file, relative to the scenario file.' },
          throttle: {
            type: 'integer',
            minimum: 0,
            description: '--throttle in B/s (printed as the tool prints it).',
          },
        },
        [],
        { oneOf: exactlyOne(['json', 'file']) },
      ),
      description:
        'kafka-reassign-partitions.sh --execute: prints the rollback JSON and `Successfully started partition reassignments for ...`.',
    },
    waitUntil: {
      ...object(
        {
          condition: ref('condition'),
          timeout: withDescription(ref('duration'), 'Give up after this much virtual time.'),
          poll: withDescription(
            ref('duration'),
            'Check the condition at most this often (default 1ms; it is checked after events).',
          ),
          onTimeout: {
            type: 'string',
            enum: ['fail', 'continue'],
            description: 'fail (default): the run fails and the timeline stops; continue: go on.',
          },
        },
        ['condition', 'timeout'],
      ),
      description: 'Runs until the condition holds (the step ends at that moment).',
    },
    print: {
      title:
        'one of describe-topic, list-topics, reassign-verify, delivery-report, or {describe-topic: <topic>}, {reassign-verify: <label>}, {delivery-report: <producer>}, {describe-group: <group>}, {ingest-metrics: <ingest>}, {ingest-losses: <ingest>}, {sql: <query>}, {text: ...}',
      description:
        "Prints tool output now: kafka-topics --describe (every topic, or one), --list, kafka-reassign-partitions --verify (of the last reassign step, or the one labelled), a producer's delivery report, kafka-consumer-groups --describe --group, an ingest service's metrics page or its lost batches (offsets and reason) and crashes between ingest and commit, the result of a Lake SQL query as of this moment (needs runScenarioAsync, which `kafkasim run` uses), or a text line.",
      anyOf: [
        { type: 'string', enum: ['describe-topic', 'list-topics', 'reassign-verify', 'delivery-report'] },
        object({ 'describe-topic': ref('topicName') }, ['describe-topic']),
        object({ 'reassign-verify': ref('label') }, ['reassign-verify']),
        object({ 'delivery-report': ref('clientName') }, ['delivery-report']),
        object({ 'describe-group': { type: 'string', minLength: 1 } }, ['describe-group']),
        object({ 'ingest-metrics': ref('clientName') }, ['ingest-metrics']),
        object({ 'ingest-losses': ref('clientName') }, ['ingest-losses']),
        object({ sql: { type: 'string', minLength: 1 } }, ['sql']),
        object({ text: { type: 'string' } }, ['text']),
      ],
    },
    step: {
      type: 'object',
      title: 'a step',
      description:
        'One step: optional timing (`at` or `after`), optional `label`, `note` and `quiet`, and exactly one action.',
      properties: {
        at: withDescription(
          ref('duration'),
          'Time since the timeline started (time 0 is when the cluster is up, `topics` exist and autoStart clients run); if the clock is already past it, the step runs at once.',
        ),
        after: withDescription(ref('duration'), 'Virtual time after the previous step ended.'),
        label: withDescription(ref('label'), 'A name for expectations (timing, leaderFromIsr, brokerOf).'),
        note: {
          type: 'string',
          description: 'A line the CLI prints before the step (a comment for readers).',
        },
        quiet: { type: 'boolean', description: "Don't print the tool output of this step." },
        ...actions,
      },
      additionalProperties: false,
      oneOf: exactlyOne(STEP_ACTIONS),
    },
    condition: {
      type: 'object',
      title: 'a condition',
      description: `Exactly one of: ${CONDITION_KINDS.join(', ')}.`,
      properties: conditionProps,
      additionalProperties: false,
      oneOf: exactlyOne(CONDITION_KINDS),
    },
    expectation: {
      type: 'object',
      title: 'an expectation',
      description: 'A `name` and exactly one condition (or `sql`); the result reports expected vs actual.',
      properties: {
        name: { type: 'string', minLength: 1, description: 'Shown in the summary and the JSON result.' },
        description: { type: 'string' },
        ...conditionProps,
        sql: object(
          {
            query: { type: 'string', minLength: 1, description: 'A Databend statement (the Lake dialect).' },
            equals: {
              type: 'array',
              title: 'a list of rows, each a list of values',
              description: 'The expected rows, in order; values compare as text (numbers as written).',
              items: { type: 'array', items: { type: ['string', 'number', 'null'] } },
            },
          },
          ['query', 'equals'],
          {
            description:
              'A Lake SQL query on the final state whose rows must equal `equals` (needs runScenarioAsync, which `kafkasim run` uses).',
          },
        ),
      },
      required: ['name'],
      additionalProperties: false,
      oneOf: exactlyOne([...CONDITION_KINDS, 'sql']),
    },
    metric: {
      type: 'object',
      title: 'a metric',
      description: `Exactly one of: ${METRIC_KINDS.join(', ')}.`,
      properties: metricProps,
      additionalProperties: false,
      oneOf: exactlyOne(METRIC_KINDS),
    },
  };

  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'kafkasim scenario',
    description:
      'A cluster, its topics and clients, a timeline of actions and faults, and the expectations that must hold. Run it with `kafkasim run <file>`.',
    type: 'object',
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        description: 'Short name, shown by `kafkasim list` and results.',
      },
      description: { type: 'string', description: 'What the scenario shows; its first line is the summary.' },
      seed: {
        type: ['integer', 'string'],
        description: 'The one seed all randomness derives from (default 1; `--seed` overrides).',
      },
      startTime: {
        type: ['string', 'integer'],
        description:
          'The virtual wall clock at virtual time 0, for every timestamp the tools print (log4j prefixes, consumer-perf-test dates, the ingest service log, Lake times): an ISO 8601 date-time with a zone (2024-06-01T09:30:00Z) or epoch milliseconds. Default 2026-01-01T00:00:00Z, fixed so that output is deterministic.',
      },
      cluster: withDescription(
        object({
          brokers: {
            title: 'a broker count or a list of {id, rack}',
            description: 'A count (ids from firstBrokerId) or the brokers with their racks. Default 3.',
            anyOf: [
              { type: 'integer', minimum: 1 },
              {
                type: 'array',
                items: object({ id: ref('brokerId'), rack: { type: 'string' } }, ['id']),
                minItems: 1,
              },
            ],
          },
          firstBrokerId: { type: 'integer', minimum: 0, description: 'Id of the first broker (default 0).' },
          storage: {
            type: 'string',
            enum: ['kafka', 'shared'],
            description:
              'kafka: replicated local logs (default); shared: AutoMQ-style shared storage (RF 1).',
          },
          configs: {
            type: 'object',
            title: 'a mapping of server.properties keys to values',
            description:
              'server.properties: known broker and controller keys are typed; any other Kafka key is kept as a static broker config (shown by describe where it sets a topic default, e.g. log.segment.bytes).',
            properties: clusterConfigProperties(),
            additionalProperties: ref('configValue'),
          },
          latency: {
            title: 'a duration or a latency distribution',
            description: 'Network latency between nodes: a constant duration or a distribution in ms.',
            anyOf: [ref('duration'), ref('distribution')],
          },
          checkInvariantsEvery: {
            type: 'integer',
            minimum: 1,
            description: 'Check model invariants after every N events (default 1: every event).',
          },
          controllers: {
            type: 'integer',
            minimum: 1,
            description:
              'Controllers in the KRaft metadata quorum (node ids 3000, 3001, ...). Default 1: one controller on a local metadata log. 2 or more: each is a Raft voter, the Raft leader is the active controller, the others are standbys that answer NOT_CONTROLLER; controller.quorum.* and kafkasim.raft.* keys under configs tune the quorum.',
          },
          metadataLoad: object(
            {
              rate: {
                type: 'number',
                exclusiveMinimum: 0,
                maximum: 1000,
                description: 'Records per second the active controller appends.',
              },
            },
            ['rate'],
            {
              description:
                "A steady append load on the metadata log, like the Raft test server's workload: the active controller appends NoOpRecords numbered 1, 2, 3, ... (after a failover, the new active controller continues from the last committed number), and every controller checks that the committed numbers are exactly previous + 1 (the ReplicatedCounter invariant). See the metadataLoad condition and metric.",
            },
          ),
        }),
        'The simulated cluster: brokers (and racks), storage mode, server.properties, network latency.',
      ),
      topics: {
        type: 'array',
        items: ref('topic'),
        description: 'Topics created (silently) before the timeline starts.',
      },
      clients: withDescription(
        object({
          producers: {
            type: 'array',
            items: ref('producer'),
            description: 'Producers with a steady workload (records/s), tracked for the delivery checks.',
          },
          consumers: { type: 'array', items: ref('consumer'), description: 'Consumers in assign mode.' },
          groups: {
            type: 'array',
            items: ref('group'),
            description:
              'Consumer groups (classic protocol): members in subscribe mode, started and stopped together.',
          },
          perfProducers: {
            type: 'array',
            items: ref('perfProducer'),
            description: 'kafka-producer-perf-test runs: print the tool’s progress and summary lines.',
          },
          ingest: {
            type: 'array',
            items: ref('ingest'),
            description: 'bend-ingest-kafka services writing a topic into the Lake (source workflow B).',
          },
        }),
        'Clients by name; each starts with `autoStart: true` or a `start` step.',
      ),
      faults: withDescription(
        object({
          dropProbability: {
            type: 'number',
            minimum: 0,
            maximum: 1,
            description: 'Drop each message with this probability from the start.',
          },
          slowBrokers: {
            type: 'object',
            title: 'a mapping of broker id to extra delay',
            propertyNames: { pattern: '^\\d+$' },
            additionalProperties: ref('duration'),
            description: 'Extra delay on every message to and from these brokers from the start.',
          },
        }),
        'Faults in force from the start (timeline steps add and remove others).',
      ),
      timeline: {
        type: 'array',
        items: ref('step'),
        description: 'The steps, in order. Each runs at its time (`at`/`after`) or right after the previous.',
      },
      expectations: {
        type: 'array',
        items: ref('expectation'),
        description: 'Checked when the timeline ends; the run passes when all hold.',
      },
      metrics: {
        type: 'object',
        title: 'a mapping of metric names to metric definitions',
        description: 'Extra named numbers in the result (in addition to the built-in ones).',
        propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' },
        additionalProperties: ref('metric'),
      },
    },
    required: ['name', 'timeline'],
    additionalProperties: false,
    definitions: definitions as Json as Schema,
  };
}

export const scenarioSchema: Schema = buildScenarioSchema();
