// The clients' part of the scenario JSON Schema: producers, consumers, groups, perf producers and ingest
// services, with every config key and default taken from the client models themselves.
import { consumerConfig, groupConsumerConfig, producerConfig } from '../../models/clients/index.ts';
import { INGEST_DEFAULTS } from '../../models/lake/index.ts';
import { defaultText, object, ref, type Schema, typeOf, withDescription } from './schema-kit.ts';

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

/** The client definitions of the scenario schema (`#/definitions/producer`, ...). */
export function clientDefinitions(): Record<string, Schema> {
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

  return {
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
        'group.protocol': {
          type: 'string',
          enum: ['classic', 'consumer'],
          title: 'classic (JoinGroup/SyncGroup) or consumer (KIP-848: the coordinator assigns)',
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
  };
}
