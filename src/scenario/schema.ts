// The JSON Schema of a scenario file. It is built here (so that config keys and defaults come from the models
// themselves) and shipped as schema/scenario.schema.json for editors (`# yaml-language-server: $schema=...`);
// a test keeps the file equal to this object, and `npx tsx src/scenario/emit-schema.ts` rewrites it.
// Every `description` is user documentation; a `title` on a definition is the phrase error messages use for
// "expected ...".
import { brokerDefaults } from '../../models/broker/index.ts';
import { DEFAULT_CONTROLLER_CONFIG, TOPIC_CONFIGS } from '../../models/controller/index.ts';
import { DEFAULT_QUORUM_CONFIG } from '../../models/raft/index.ts';
import { CONDITION_KINDS, conditionSchemas, METRIC_KINDS, metricSchemas } from './conditions/index.ts';
import { clientDefinitions } from './schema-clients.ts';
import {
  defaultText,
  exactlyOne,
  type Json,
  object,
  ref,
  type Schema,
  typeOf,
  withDescription,
} from './schema-kit.ts';
import { STEP_ACTIONS, stepSchemas } from './steps/index.ts';

/**
 * The id the loader registers the schema under in ajv (so that a union's branches can be compiled by pointer).
 * The shipped file has no $id: editors resolve its `#/definitions/...` against the file itself.
 */
export const SCENARIO_SCHEMA_ID = 'kafkasim:scenario';

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
    'kafkasim.raft.append.ms':
      ' How long a batch takes to reach the log (page-cache write), on the leader after its accumulator drains and on a follower after each Fetch answer.',
    'kafkasim.raft.fsync.ms':
      ' With flush.enable true: how long a flush (fsync) takes; the leader answers parked fetches before it and counts the records only after it, a voter fetches again only after it.',
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

/** The scenario JSON Schema (draft-07). */
export function buildScenarioSchema(): Schema {
  const actions = stepSchemas();
  const conditionProps = conditionSchemas(CONDITION_KINDS);
  const metricProps = metricSchemas();
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
    ...clientDefinitions(),
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
              "server.properties: known broker and controller keys are typed; any other Kafka key is kept as a static broker config (shown by describe where it sets a topic default, e.g. log.segment.bytes). kafkasim.tool.startup.ms and kafkasim.client.startup.ms (an operator tool's start-up before its request, a client process's before its Kafka client) take ms, a duration or a distribution; defaults and sources in docs/fidelity.md.",
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
      raftTestServer: withDescription(
        object(
          {
            properties: {
              type: 'object',
              title: 'a mapping of properties file names to their text',
              description:
                'One file per server, as `bin/test-raft-server-start.sh config/raft-quorum-N.properties` reads it: `broker.id` (or `node.id`), `listeners`, `quorum.voters` (or `controller.quorum.voters`), `log.dirs`; other keys (`zookeeper.connect`, `verbose`) are accepted and ignored, as the server does.',
              minProperties: 1,
              additionalProperties: { type: 'string' },
            },
            configs: {
              type: 'object',
              title: 'a mapping of quorum settings to values',
              description:
                'controller.quorum.* and kafkasim.raft.* settings of every server (kafkasim.raft.append.ms, kafkasim.raft.fsync.ms, kafkasim.raft.flush.enable...).',
              additionalProperties: ref('configValue'),
            },
            latency: {
              title: 'a duration or a latency distribution',
              description: 'Network latency between any two nodes (default 1ms).',
              anyOf: [ref('duration'), ref('distribution')],
            },
          },
          ['properties'],
        ),
        "Kafka's Raft test server (kafka.tools.TestRaftServer) instead of a cluster: a quorum that serves its Raft log as __cluster_metadata-0 to the verifiableProducer and producerPerfTest steps. Such a scenario has no cluster, topics, clients or faults; its steps are those two and run; its conditions output and invariants, its metrics output.",
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
              'Consumer groups (classic protocol, or KIP-848 with config group.protocol: consumer): members in subscribe mode, started and stopped together.',
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
