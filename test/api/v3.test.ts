// Confluent REST v3 routes in process (fastify.inject): envelopes, links, status codes and error bodies.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Fixture, fixture } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture({ seed: 7, brokers: 3 });
});
afterEach(async () => {
  await f.close();
});

const HOST = 'http://localhost:80';

async function createTopic(body: Record<string, unknown>) {
  return f.call('POST', `${f.base}/topics`, body);
}

describe('clusters and brokers', () => {
  it('lists the one cluster with the spec envelope and links', async () => {
    const r = await f.call('GET', '/v3/clusters');
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('KafkaClusterList');
    expect(r.body.metadata).toEqual({ self: `${HOST}/v3/clusters`, next: null });
    const c = r.body.data[0];
    expect(c.kind).toBe('KafkaCluster');
    expect(c.cluster_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(c.metadata).toEqual({ self: `${HOST}${f.base}`, resource_name: `crn:///kafka=${f.cid}` });
    expect(c.brokers).toEqual({ related: `${HOST}${f.base}/brokers` });
    expect(c.partition_reassignments).toEqual({
      related: `${HOST}${f.base}/topics/-/partitions/-/reassignment`,
    });
    expect(c.controller).toEqual({ related: `${HOST}${f.base}/brokers/0` });
    const one = await f.call('GET', f.base);
    expect(one.body).toEqual(c);
  });

  it('answers an unknown cluster with 404 and the spec message', async () => {
    const r = await f.call('GET', '/v3/clusters/my-cluster/topics');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error_code: 404, message: 'Cluster my-cluster cannot be found.' });
  });

  it('lists brokers, gets one, its replicas and configs', async () => {
    const list = await f.call('GET', `${f.base}/brokers`);
    expect(list.body.kind).toBe('KafkaBrokerList');
    expect(list.body.data.map((b: { broker_id: number }) => b.broker_id)).toEqual([0, 1, 2]);
    const b1 = await f.call('GET', `${f.base}/brokers/1`);
    expect(b1.body).toMatchObject({
      kind: 'KafkaBroker',
      broker_id: 1,
      host: 'localhost',
      port: 9093,
      rack: null,
      metadata: { resource_name: `crn:///kafka=${f.cid}/broker=1` },
      partition_replicas: { related: `${HOST}${f.base}/brokers/1/partition-replicas` },
    });
    expect((await f.call('GET', `${f.base}/brokers/9`)).status).toBe(404);
    await createTopic({ topic_name: 'a', partitions_count: 3, replication_factor: 3 });
    const replicas = await f.call('GET', `${f.base}/brokers/1/partition-replicas`);
    expect(replicas.body.kind).toBe('KafkaReplicaList');
    expect(replicas.body.data).toHaveLength(3);
    expect(replicas.body.data.every((r: { broker_id: number }) => r.broker_id === 1)).toBe(true);
    const configs = await f.call('GET', `${f.base}/brokers/1/configs`);
    const seg = configs.body.data.find((c: { name: string }) => c.name === 'log.segment.bytes');
    expect(seg).toMatchObject({
      kind: 'KafkaBrokerConfig',
      value: '1073741824',
      source: 'STATIC_BROKER_CONFIG',
      is_default: false,
    });
  });
});

describe('topics', () => {
  it('creates a topic: 201, Location, the topic data; the simulated cluster has it', async () => {
    const r = await createTopic({
      topic_name: 'orders',
      partitions_count: 6,
      replication_factor: 2,
      configs: [{ name: 'cleanup.policy', value: 'compact' }],
    });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe(`${HOST}${f.base}/topics/orders`);
    expect(r.body).toEqual({
      kind: 'KafkaTopic',
      metadata: {
        self: `${HOST}${f.base}/topics/orders`,
        resource_name: `crn:///kafka=${f.cid}/topic=orders`,
      },
      cluster_id: f.cid,
      topic_name: 'orders',
      is_internal: false,
      replication_factor: 2,
      partitions_count: 6,
      partitions: { related: `${HOST}${f.base}/topics/orders/partitions` },
      configs: { related: `${HOST}${f.base}/topics/orders/configs` },
      partition_reassignments: { related: `${HOST}${f.base}/topics/orders/partitions/-/reassignment` },
    });
    const t = f.host.cluster.image.topics.orders!;
    expect(t.partitions).toHaveLength(6);
    expect(t.partitions.every((p) => p.replicas.length === 2)).toBe(true);
    expect(f.host.cluster.image.configs.topic.orders).toEqual({ 'cleanup.policy': 'compact' });
    const get = await f.call('GET', `${f.base}/topics/orders`);
    expect(get.body).toEqual(r.body);
    const list = await f.call('GET', `${f.base}/topics`);
    expect(list.body.kind).toBe('KafkaTopicList');
    expect(list.body.data.map((t: { topic_name: string }) => t.topic_name)).toEqual(['orders']);
  });

  it('validate_only answers 200 and creates nothing', async () => {
    const r = await createTopic({ topic_name: 'dry', partitions_count: 4, validate_only: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ topic_name: 'dry', partitions_count: 4, replication_factor: 1 });
    expect(f.host.cluster.image.topics.dry).toBeUndefined();
  });

  it('creates with an explicit assignment', async () => {
    const r = await createTopic({
      topic_name: 'manual',
      replicas_assignments: [
        { partition_id: 0, broker_ids: [2, 0] },
        { partition_id: 1, broker_ids: [1, 2] },
      ],
    });
    expect(r.status).toBe(201);
    expect(f.host.cluster.image.topics.manual!.partitions.map((p) => p.replicas)).toEqual([
      [2, 0],
      [1, 2],
    ]);
  });

  it("answers the controller's refusals with 400/40002 and Kafka's messages, changing nothing", async () => {
    await createTopic({ topic_name: 'x', partitions_count: 1 });
    const before = f.host.fingerprint();
    const cases: [Record<string, unknown>, string][] = [
      [{ topic_name: 'x' }, "Topic 'x' already exists."],
      [
        { topic_name: 'y', replication_factor: 4 },
        'Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
      ],
      [
        { topic_name: 'y', partitions_count: 0 },
        'Number of partitions was set to an invalid non-positive value.',
      ],
      [
        { topic_name: 'y', replication_factor: 0 },
        'Replication factor must be larger than 0, or -1 to use the default value.',
      ],
      [
        { topic_name: 'bad name' },
        "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
      ],
      [
        { topic_name: 'y', configs: [{ name: 'nope.config', value: '1' }] },
        'Unknown topic config name: nope.config',
      ],
      [
        { topic_name: 'y', configs: [{ name: 'cleanup.policy', value: null }] },
        'Null value not supported for topic configs: cleanup.policy',
      ],
      [
        { topic_name: 'y', replicas_assignments: [{ partition_id: 0, broker_ids: [7] }] },
        'The manual partition assignment includes broker 7, but no such broker is registered.',
      ],
      [
        { topic_name: 'y', partitions_count: 10_001 },
        'kafkasim: one request may create at most 10000 partitions, not 10001.',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await createTopic(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toEqual({ error_code: 40002, message });
    }
    expect(f.host.fingerprint()).toEqual(before);
  });

  it('refuses bodies that break the schema with 400', async () => {
    for (const body of [
      {},
      { topic_name: 5 },
      { topic_name: 't', partitions_count: '3' },
      { topic_name: 't', configs: 'x' },
    ]) {
      const r = await createTopic(body);
      expect(r.status).toBe(400);
      expect(r.body.error_code).toBe(400);
      expect(typeof r.body.message).toBe('string');
    }
    const bad = await f.app.inject({
      method: 'POST',
      url: `${f.base}/topics`,
      payload: '{"topic_name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error_code).toBe(400);
  });

  it('PATCH increases the partition count; a decrease is refused', async () => {
    await createTopic({ topic_name: 'grow', partitions_count: 2 });
    const r = await f.call('PATCH', `${f.base}/topics/grow`, { partitions_count: 8 });
    expect(r.status).toBe(200);
    expect(r.body.partitions_count).toBe(8);
    expect(f.host.cluster.image.topics.grow!.partitions).toHaveLength(8);
    const down = await f.call('PATCH', `${f.base}/topics/grow`, { partitions_count: 4 });
    expect(down.body).toEqual({
      error_code: 40002,
      message: 'The topic grow currently has 8 partition(s); 4 would not be an increase.',
    });
    const same = await f.call('PATCH', `${f.base}/topics/grow`, { partitions_count: 8 });
    expect(same.body).toEqual({ error_code: 40002, message: 'Topic already has 8 partition(s).' });
    const missing = await f.call('PATCH', `${f.base}/topics/none`, { partitions_count: 8 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error_code: 40403,
      message: 'This server does not host this topic-partition.',
    });
  });

  it('DELETE answers 204 and the topic is gone; an unknown topic is 404/40403', async () => {
    await createTopic({ topic_name: 'gone', partitions_count: 1 });
    const r = await f.call('DELETE', `${f.base}/topics/gone`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(f.host.cluster.image.topics.gone).toBeUndefined();
    expect((await f.call('GET', `${f.base}/topics/gone`)).body.error_code).toBe(40403);
    expect((await f.call('DELETE', `${f.base}/topics/gone`)).status).toBe(404);
  });
});

describe('partitions and replicas', () => {
  beforeEach(async () => {
    await createTopic({
      topic_name: 'p',
      replicas_assignments: [
        { partition_id: 0, broker_ids: [1, 2] },
        { partition_id: 1, broker_ids: [2, 0] },
      ],
    });
  });

  it('lists partitions with the leader as a link to its replica', async () => {
    const r = await f.call('GET', `${f.base}/topics/p/partitions`);
    expect(r.body.kind).toBe('KafkaPartitionList');
    expect(r.body.data[0]).toEqual({
      kind: 'KafkaPartition',
      metadata: {
        self: `${HOST}${f.base}/topics/p/partitions/0`,
        resource_name: `crn:///kafka=${f.cid}/topic=p/partition=0`,
      },
      cluster_id: f.cid,
      topic_name: 'p',
      partition_id: 0,
      leader: { related: `${HOST}${f.base}/topics/p/partitions/0/replicas/1` },
      replicas: { related: `${HOST}${f.base}/topics/p/partitions/0/replicas` },
      reassignment: { related: `${HOST}${f.base}/topics/p/partitions/0/reassignment` },
    });
    expect((await f.call('GET', `${f.base}/topics/p/partitions/1`)).body.partition_id).toBe(1);
    expect((await f.call('GET', `${f.base}/topics/p/partitions/5`)).status).toBe(404);
    expect((await f.call('GET', `${f.base}/topics/p/partitions/x`)).status).toBe(400);
  });

  it('lists replicas in assignment order with leader and ISR flags', async () => {
    const r = await f.call('GET', `${f.base}/topics/p/partitions/1/replicas`);
    expect(
      r.body.data.map((x: { broker_id: number; is_leader: boolean; is_in_sync: boolean }) => [
        x.broker_id,
        x.is_leader,
        x.is_in_sync,
      ]),
    ).toEqual([
      [2, true, true],
      [0, false, true],
    ]);
    const one = await f.call('GET', `${f.base}/topics/p/partitions/1/replicas/0`);
    expect(one.body).toMatchObject({
      kind: 'KafkaReplica',
      broker_id: 0,
      broker: { related: `${HOST}${f.base}/brokers/0` },
    });
    expect((await f.call('GET', `${f.base}/topics/p/partitions/1/replicas/1`)).status).toBe(404);
  });
});

describe('topic configs', () => {
  beforeEach(async () => {
    await createTopic({ topic_name: 'c', partitions_count: 1 });
  });

  it('lists, gets, sets, resets and batch-alters', async () => {
    const list = await f.call('GET', `${f.base}/topics/c/configs`);
    expect(list.body.kind).toBe('KafkaTopicConfigList');
    const seg = list.body.data.find((x: { name: string }) => x.name === 'segment.bytes');
    expect(seg).toMatchObject({
      value: '1073741824',
      source: 'STATIC_BROKER_CONFIG',
      is_default: false,
      synonyms: [
        { name: 'log.segment.bytes', value: '1073741824', source: 'STATIC_BROKER_CONFIG' },
        { name: 'log.segment.bytes', value: '1073741824', source: 'DEFAULT_CONFIG' },
      ],
    });
    expect((await f.call('PUT', `${f.base}/topics/c/configs/retention.ms`, { value: '1000' })).status).toBe(
      204,
    );
    const got = await f.call('GET', `${f.base}/topics/c/configs/retention.ms`);
    expect(got.body).toMatchObject({
      kind: 'KafkaTopicConfig',
      value: '1000',
      source: 'DYNAMIC_TOPIC_CONFIG',
      is_default: false,
    });
    expect((await f.call('DELETE', `${f.base}/topics/c/configs/retention.ms`)).status).toBe(204);
    expect((await f.call('GET', `${f.base}/topics/c/configs/retention.ms`)).body.source).toBe(
      'DEFAULT_CONFIG',
    );
    const batch = await f.call('POST', `${f.base}/topics/c/configs:alter`, {
      data: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'retention.ms', operation: 'DELETE' },
      ],
    });
    expect(batch.status).toBe(204);
    expect(f.host.cluster.image.configs.topic.c).toEqual({ 'cleanup.policy': 'compact' });
    const all = await f.call('GET', `${f.base}/topics/-/configs`);
    expect(all.body.data.filter((x: { topic_name: string }) => x.topic_name === 'c').length).toBe(
      list.body.data.length,
    );
  });

  it('refuses bad values with the controller message', async () => {
    const r = await f.call('PUT', `${f.base}/topics/c/configs/retention.ms`, { value: 'soon' });
    expect(r.body).toEqual({
      error_code: 40002,
      message: 'Invalid value soon for configuration retention.ms: Not a number of type LONG',
    });
    expect((await f.call('GET', `${f.base}/topics/c/configs/nope`)).status).toBe(404);
    expect((await f.call('GET', `${f.base}/topics/zz/configs`)).body.error_code).toBe(40403);
  });
});

describe('partition reassignments', () => {
  it('GETs follow the spec paths; the write extension takes Kafka JSON and starts the move', async () => {
    await createTopic({
      topic_name: 'r',
      replicas_assignments: [
        { partition_id: 0, broker_ids: [0] },
        { partition_id: 1, broker_ids: [1] },
      ],
    });
    const none = await f.call('GET', `${f.base}/topics/-/partitions/-/reassignment`);
    expect(none.body).toEqual({
      kind: 'KafkaReassignmentList',
      metadata: { self: `${HOST}${f.base}/topics/-/partitions/-/reassignment`, next: null },
      data: [],
    });
    const r = await f.call('POST', `${f.base}/topics/-/partitions/-/reassignment`, {
      version: 1,
      partitions: [{ topic: 'r', partition: 0, replicas: [2] }],
    });
    expect(r.status).toBe(202);
    expect(r.body.kind).toBe('KafkaReassignmentList');
    expect(r.body.data[0]).toMatchObject({
      kind: 'KafkaReassignment',
      topic_name: 'r',
      partition_id: 0,
      adding_replicas: [2],
      removing_replicas: [0],
    });
    const all = await f.call('GET', `${f.base}/topics/-/partitions/-/reassignment`);
    expect(all.body.data).toHaveLength(1);
    const byTopic = await f.call('GET', `${f.base}/topics/r/partitions/-/reassignment`);
    expect(byTopic.body.data[0].replicas).toEqual({
      related: `${HOST}${f.base}/topics/r/partitions/0/replicas`,
    });
    const one = await f.call('GET', `${f.base}/topics/r/partitions/0/reassignment`);
    expect(one.body.metadata.resource_name).toBe(`crn:///kafka=${f.cid}/topic=r/partition=0/reassignment`);
    expect((await f.call('GET', `${f.base}/topics/r/partitions/1/reassignment`)).status).toBe(404);
    await f.call('POST', '/sim/advance', { until: { reassignments_done: true }, timeout: '60s' });
    expect(f.host.cluster.image.topics.r!.partitions[0]!.replicas).toEqual([2]);
  });

  it("refuses what the tool or the controller would, with Kafka's words", async () => {
    await createTopic({ topic_name: 'r', partitions_count: 1 });
    const before = f.host.fingerprint();
    const post = (body: unknown) => f.call('POST', `${f.base}/topics/-/partitions/-/reassignment`, body);
    expect(
      (await post({ version: 1, partitions: [{ topic: 'r', partition: 0, replicas: [9] }] })).body,
    ).toEqual({
      error_code: 40002,
      message: 'Unknown broker id 9',
    });
    expect((await post({ version: 1, partitions: [] })).body).toEqual({
      error_code: 40002,
      message: 'Partition reassignment list cannot be empty',
    });
    expect(
      (await post({ version: 2, partitions: [{ topic: 'r', partition: 0, replicas: [1] }] })).body.message,
    ).toBe('Not supported version field value 2');
    expect(
      (await post({ version: 1, partitions: [{ topic: 'q', partition: 0, replicas: [1] }] })).body.error_code,
    ).toBe(40403);
    expect((await post({ partitions: [{ topic: 'r', partition: 0 }] })).status).toBe(400);
    expect(f.host.fingerprint()).toEqual(before);
  });
});

describe('consumer groups', () => {
  it('lists groups, describes one with its consumers, assignments, lags and lag summary', async () => {
    await createTopic({ topic_name: 'g', partitions_count: 4 });
    await f.call('POST', '/sim/workloads', {
      kind: 'producer',
      name: 'load',
      topic: 'g',
      rate: 1000,
      record_size: 100,
    });
    for (const name of ['m1', 'm2'])
      expect(
        (await f.call('POST', '/sim/workloads', { kind: 'consumer', name, topic: 'g', group: 'grp' })).status,
      ).toBe(201);
    const stable = await f.call('POST', '/sim/advance', { duration: '15s' });
    expect(stable.status).toBe(200);
    const list = await f.call('GET', `${f.base}/consumer-groups`);
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe('KafkaConsumerGroupList');
    expect(list.body.data.map((g: { consumer_group_id: string }) => g.consumer_group_id)).toEqual(['grp']);
    const g = await f.call('GET', `${f.base}/consumer-groups/grp`);
    const coordinator = f.host.cluster.groupCoordinator('grp');
    expect(g.body).toEqual({
      kind: 'KafkaConsumerGroup',
      metadata: {
        self: `${HOST}${f.base}/consumer-groups/grp`,
        resource_name: `crn:///kafka=${f.cid}/consumer-group=grp`,
      },
      cluster_id: f.cid,
      consumer_group_id: 'grp',
      is_simple: false,
      partition_assignor: 'range',
      state: 'STABLE',
      type: 'CLASSIC',
      is_mixed_consumer_group: false,
      coordinator: { related: `${HOST}${f.base}/brokers/${coordinator}` },
      consumers: { related: `${HOST}${f.base}/consumer-groups/grp/consumers` },
      lag_summary: { related: `${HOST}${f.base}/consumer-groups/grp/lag-summary` },
    });
    const consumers = await f.call('GET', `${f.base}/consumer-groups/grp/consumers`);
    expect(consumers.body.data).toHaveLength(2);
    const c = consumers.body.data[0];
    expect(c).toMatchObject({ kind: 'KafkaConsumer', consumer_group_id: 'grp', instance_id: null });
    expect(c.client_id).toMatch(/^consumer-grp-\d$/);
    const one = await f.call(
      'GET',
      `${f.base}/consumer-groups/grp/consumers/${encodeURIComponent(c.consumer_id)}`,
    );
    expect(one.body).toEqual(c);
    const assignments = await f.call(
      'GET',
      `${f.base}/consumer-groups/grp/consumers/${encodeURIComponent(c.consumer_id)}/assignments`,
    );
    expect(assignments.body.data).toHaveLength(2);
    const a = assignments.body.data[0];
    expect(a.partition).toEqual({ related: `${HOST}${f.base}/topics/g/partitions/${a.partition_id}` });
    const oneAssignment = await f.call(
      'GET',
      `${f.base}/consumer-groups/grp/consumers/${encodeURIComponent(c.consumer_id)}/assignments/g/partitions/${a.partition_id}`,
    );
    expect(oneAssignment.body).toEqual(a);
    const lags = await f.call('GET', `${f.base}/consumer-groups/grp/lags`);
    expect(lags.body.kind).toBe('KafkaConsumerLagList');
    for (const l of lags.body.data) {
      expect(l.lag).toBe(l.log_end_offset - l.current_offset);
      expect(l.lag).toBeGreaterThanOrEqual(0);
    }
    if (lags.body.data.length > 0) {
      const l = lags.body.data[0];
      expect(
        (await f.call('GET', `${f.base}/consumer-groups/grp/lags/g/partitions/${l.partition_id}`)).body,
      ).toEqual(l);
      const summary = await f.call('GET', `${f.base}/consumer-groups/grp/lag-summary`);
      expect(summary.body.kind).toBe('KafkaConsumerGroupLagSummary');
      expect(summary.body.total_lag).toBe(
        lags.body.data.reduce((n: number, x: { lag: number }) => n + x.lag, 0),
      );
      expect(summary.body.max_lag).toBe(Math.max(...lags.body.data.map((x: { lag: number }) => x.lag)));
    }
    // Reading groups changes nothing in the simulation.
    const before = f.host.fingerprint();
    await f.call('GET', `${f.base}/consumer-groups/grp`);
    await f.call('GET', '/sim/views/consumer-groups/grp');
    expect(f.host.fingerprint()).toEqual(before);
  });

  it('answers 404 for an unknown group, consumer, assignment or lag', async () => {
    for (const path of [
      '/nope',
      '/nope/consumers',
      '/nope/lags',
      '/nope/lag-summary',
      '/nope/consumers/c/assignments',
    ]) {
      const r = await f.call('GET', `${f.base}/consumer-groups${path}`);
      expect(r.status, path).toBe(404);
      expect(r.body.error_code).toBe(404);
    }
  });
});
