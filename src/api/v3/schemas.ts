// JSON Schemas of the Confluent REST v3 shapes this server answers and accepts: they validate requests, speed up
// responses and make up the OpenAPI document. Shapes follow confluentinc/kafka-rest `api/v3/openapi.yaml`
// (components/schemas): required fields as the spec marks them, nullable fields as `[type, 'null']`.

type Schema = Record<string, unknown>;

export const errorSchema: Schema = {
  type: 'object',
  required: ['error_code', 'message'],
  properties: { error_code: { type: 'integer' }, message: { type: ['string', 'null'] } },
};

const relationship: Schema = {
  type: 'object',
  required: ['related'],
  properties: { related: { type: 'string' } },
};

const resourceMetadata: Schema = {
  type: 'object',
  required: ['self'],
  properties: { self: { type: 'string' }, resource_name: { type: ['string', 'null'] } },
};

const collectionMetadata: Schema = {
  type: 'object',
  required: ['self'],
  properties: { self: { type: 'string' }, next: { type: ['string', 'null'] } },
};

function resourceSchema(kind: string, required: string[], properties: Record<string, Schema>): Schema {
  return {
    type: 'object',
    description: kind,
    required: ['kind', 'metadata', ...required],
    properties: { kind: { type: 'string' }, metadata: resourceMetadata, ...properties },
  };
}

export function listSchema(item: Schema): Schema {
  return {
    type: 'object',
    required: ['kind', 'metadata', 'data'],
    properties: {
      kind: { type: 'string' },
      metadata: collectionMetadata,
      data: { type: 'array', items: item },
    },
  };
}

const str = { type: 'string' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const nullableStr = { type: ['string', 'null'] };
const intList = { type: 'array', items: int };

export const clusterData = resourceSchema(
  'KafkaCluster',
  ['cluster_id', 'acls', 'brokers', 'broker_configs', 'consumer_groups', 'topics', 'partition_reassignments'],
  {
    cluster_id: str,
    controller: relationship,
    acls: relationship,
    brokers: relationship,
    broker_configs: relationship,
    consumer_groups: relationship,
    topics: relationship,
    partition_reassignments: relationship,
  },
);

export const brokerData = resourceSchema(
  'KafkaBroker',
  ['cluster_id', 'broker_id', 'configs', 'partition_replicas'],
  {
    cluster_id: str,
    broker_id: int,
    host: nullableStr,
    port: { type: ['integer', 'null'] },
    rack: nullableStr,
    configs: relationship,
    partition_replicas: relationship,
  },
);

export const topicData = resourceSchema(
  'KafkaTopic',
  [
    'cluster_id',
    'topic_name',
    'is_internal',
    'replication_factor',
    'partitions_count',
    'partitions',
    'configs',
    'partition_reassignments',
  ],
  {
    cluster_id: str,
    topic_name: str,
    is_internal: bool,
    replication_factor: int,
    partitions_count: int,
    partitions: relationship,
    configs: relationship,
    partition_reassignments: relationship,
  },
);

export const partitionData = resourceSchema(
  'KafkaPartition',
  ['cluster_id', 'topic_name', 'partition_id', 'replicas', 'reassignment'],
  {
    cluster_id: str,
    topic_name: str,
    partition_id: int,
    leader: relationship,
    replicas: relationship,
    reassignment: relationship,
  },
);

export const replicaData = resourceSchema(
  'KafkaReplica',
  ['cluster_id', 'topic_name', 'partition_id', 'broker_id', 'is_leader', 'is_in_sync', 'broker'],
  {
    cluster_id: str,
    topic_name: str,
    partition_id: int,
    broker_id: int,
    is_leader: bool,
    is_in_sync: bool,
    broker: relationship,
  },
);

export const reassignmentData = resourceSchema(
  'KafkaReassignment',
  ['cluster_id', 'topic_name', 'partition_id', 'adding_replicas', 'removing_replicas', 'replicas'],
  {
    cluster_id: str,
    topic_name: str,
    partition_id: int,
    adding_replicas: intList,
    removing_replicas: intList,
    replicas: relationship,
  },
);

const synonym: Schema = {
  type: 'object',
  required: ['name', 'source'],
  properties: { name: str, value: nullableStr, source: str },
};

const configFields = {
  cluster_id: str,
  name: str,
  value: nullableStr,
  is_default: bool,
  is_read_only: bool,
  is_sensitive: bool,
  source: str,
  synonyms: { type: 'array', items: synonym },
};
const configRequired = [
  'cluster_id',
  'name',
  'is_default',
  'is_read_only',
  'is_sensitive',
  'source',
  'synonyms',
];

export const topicConfigData = resourceSchema('KafkaTopicConfig', [...configRequired, 'topic_name'], {
  ...configFields,
  topic_name: str,
});

export const brokerConfigData = resourceSchema('KafkaBrokerConfig', [...configRequired, 'broker_id'], {
  ...configFields,
  broker_id: int,
});

export const consumerGroupData = resourceSchema(
  'KafkaConsumerGroup',
  [
    'cluster_id',
    'consumer_group_id',
    'is_simple',
    'partition_assignor',
    'state',
    'coordinator',
    'consumers',
    'lag_summary',
  ],
  {
    cluster_id: str,
    consumer_group_id: str,
    is_simple: bool,
    partition_assignor: str,
    state: str,
    type: str,
    is_mixed_consumer_group: bool,
    coordinator: relationship,
    consumers: relationship,
    lag_summary: relationship,
  },
);

export const consumerData = resourceSchema(
  'KafkaConsumer',
  ['cluster_id', 'consumer_group_id', 'consumer_id', 'client_id', 'assignments'],
  {
    cluster_id: str,
    consumer_group_id: str,
    consumer_id: str,
    instance_id: nullableStr,
    client_id: str,
    assignments: relationship,
  },
);

export const consumerAssignmentData = resourceSchema(
  'KafkaConsumerAssignment',
  ['cluster_id', 'consumer_group_id', 'consumer_id', 'topic_name', 'partition_id', 'partition', 'lag'],
  {
    cluster_id: str,
    consumer_group_id: str,
    consumer_id: str,
    topic_name: str,
    partition_id: int,
    partition: relationship,
    lag: relationship,
  },
);

export const consumerLagData = resourceSchema(
  'KafkaConsumerLag',
  [
    'cluster_id',
    'consumer_group_id',
    'topic_name',
    'partition_id',
    'current_offset',
    'log_end_offset',
    'lag',
    'consumer_id',
    'client_id',
  ],
  {
    cluster_id: str,
    consumer_group_id: str,
    topic_name: str,
    partition_id: int,
    current_offset: int,
    log_end_offset: int,
    lag: int,
    consumer_id: str,
    instance_id: nullableStr,
    client_id: str,
  },
);

export const consumerGroupLagSummaryData = resourceSchema(
  'KafkaConsumerGroupLagSummary',
  [
    'cluster_id',
    'consumer_group_id',
    'max_lag_consumer_id',
    'max_lag_client_id',
    'max_lag_topic_name',
    'max_lag_partition_id',
    'max_lag',
    'total_lag',
    'max_lag_consumer',
    'max_lag_partition',
  ],
  {
    cluster_id: str,
    consumer_group_id: str,
    max_lag_consumer_id: str,
    max_lag_instance_id: nullableStr,
    max_lag_client_id: str,
    max_lag_topic_name: str,
    max_lag_partition_id: int,
    max_lag: int,
    total_lag: int,
    max_lag_consumer: relationship,
    max_lag_partition: relationship,
  },
);

// ---- parameters ---------------------------------------------------------------------------------------------

/** Kafka ids are Java ints. */
const javaInt = { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
const name = { type: 'string', minLength: 1, maxLength: 1024 };

export function params(
  ...names: (
    | 'cluster_id'
    | 'topic_name'
    | 'partition_id'
    | 'broker_id'
    | 'name'
    | 'consumer_group_id'
    | 'consumer_id'
  )[]
): Schema {
  const properties: Record<string, Schema> = {};
  for (const n of names) properties[n] = n === 'partition_id' || n === 'broker_id' ? javaInt : name;
  return { type: 'object', required: names, properties, additionalProperties: false };
}

// ---- request bodies -----------------------------------------------------------------------------------------

export const REQUEST_LIMITS = {
  /** Partitions one create or PATCH may add. */
  maxPartitionsPerRequest: 10_000,
  /** Partitions the whole simulated cluster may hold. */
  maxPartitionsPerCluster: 100_000,
  maxConfigsPerRequest: 200,
  maxReassignmentsPerRequest: 10_000,
} as const;

const configEntry: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 1024 },
    value: { type: ['string', 'null'], maxLength: 65536 },
  },
};

export const createTopicBody: Schema = {
  type: 'object',
  required: ['topic_name'],
  properties: {
    topic_name: { type: 'string', maxLength: 1024 },
    partitions_count: javaInt,
    replication_factor: javaInt,
    replicas_assignments: {
      type: 'array',
      maxItems: REQUEST_LIMITS.maxPartitionsPerRequest,
      items: {
        type: 'object',
        required: ['partition_id', 'broker_ids'],
        properties: {
          partition_id: { type: 'integer', minimum: 0, maximum: REQUEST_LIMITS.maxPartitionsPerRequest },
          broker_ids: { type: 'array', maxItems: 1024, items: javaInt },
        },
      },
    },
    configs: { type: 'array', maxItems: REQUEST_LIMITS.maxConfigsPerRequest, items: configEntry },
    validate_only: bool,
  },
};

export const updatePartitionCountBody: Schema = {
  type: 'object',
  required: ['partitions_count'],
  properties: { partitions_count: javaInt },
};

export const updateConfigBody: Schema = {
  type: 'object',
  properties: { value: { type: ['string', 'null'], maxLength: 65536 } },
};

export const alterConfigBatchBody: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      maxItems: REQUEST_LIMITS.maxConfigsPerRequest,
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', maxLength: 1024 },
          value: { type: ['string', 'null'], maxLength: 65536 },
          operation: { type: ['string', 'null'], enum: ['SET', 'DELETE', 'set', 'delete', null] },
        },
      },
    },
    validate_only: bool,
  },
};

/** Kafka's reassignment JSON (kafka-reassign-partitions --reassignment-json-file), the write extension's body. */
export const reassignmentJsonBody: Schema = {
  type: 'object',
  required: ['partitions'],
  properties: {
    version: { type: 'integer' },
    partitions: {
      type: 'array',
      maxItems: REQUEST_LIMITS.maxReassignmentsPerRequest,
      items: {
        type: 'object',
        required: ['topic', 'partition', 'replicas'],
        properties: {
          topic: { type: 'string', maxLength: 1024 },
          partition: javaInt,
          replicas: { type: 'array', maxItems: 1024, items: javaInt },
          log_dirs: { type: 'array', maxItems: 1024, items: { type: 'string', maxLength: 4096 } },
        },
      },
    },
  },
};
