// Simulation control, workloads, state, metrics, OpenAPI, optional modules and auth, in process (fastify.inject).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRODUCER_PERF_CLIENT_ID } from '../../src/format/index.ts';
import { type Fixture, fixture, LAKE_AUTH } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture({ seed: 3, brokers: 3 });
});
afterEach(async () => {
  await f.close();
});

const topic = (name: string, partitions = 4) =>
  f.call('POST', `${f.base}/topics`, { topic_name: name, partitions_count: partitions });

describe('clock', () => {
  it('reports the clock; pause, resume and speed change pacing only', async () => {
    const c = await f.call('GET', '/sim/clock');
    expect(c.body).toMatchObject({ speed: 1, paused: false, manual: true, halted: null });
    expect(c.body.now_ms).toBe(f.host.sim.now);
    const before = f.host.fingerprint();
    expect((await f.call('POST', '/sim/pause')).body.paused).toBe(true);
    expect((await f.call('PUT', '/sim/clock/speed', { speed: 'max' })).body.speed).toBe('max');
    expect((await f.call('PUT', '/sim/clock/speed', { speed: 10 })).body.speed).toBe(10);
    expect((await f.call('POST', '/sim/resume')).body.paused).toBe(false);
    expect(f.host.fingerprint()).toEqual(before);
    expect(f.host.log).toHaveLength(0);
    // A route that takes no body accepts none or `{}` (curl -d '{}'), and refuses anything else, saying why.
    expect((await f.call('POST', '/sim/pause', {})).body.paused).toBe(true);
    const bodied = await f.call('POST', '/sim/resume', { speed: 5 });
    expect(bodied.status).toBe(400);
    expect(bodied.body.message).toBe('this endpoint takes no request body: send none (or {})');
    expect((await f.call('POST', '/sim/resume')).body.paused).toBe(false);
    const bad = await f.call('PUT', '/sim/clock/speed', { speed: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/speed must be a positive decimal number/);
  });

  it('steps events and advances by a duration, exactly', async () => {
    const events = f.host.sim.eventCount;
    const s = await f.call('POST', '/sim/step', { events: 5 });
    expect(s.body.events_run).toBe(5);
    expect(f.host.sim.eventCount).toBe(events + 5);
    const t = f.host.sim.now;
    const a = await f.call('POST', '/sim/advance', { duration: '2.5s' });
    expect(a.status).toBe(200);
    expect(f.host.sim.now).toBe(t + 2500);
    expect(a.body).toMatchObject({ now_ms: t + 2500, advanced_ms: 2500, met: true });
    expect(f.host.log.map((e) => e.url)).toEqual(['/sim/step', '/sim/advance']);
  });

  it('advances until a condition holds, or reports it was not met', async () => {
    await topic('t', 2);
    const crash = await f.call('POST', '/sim/faults/crash-broker', { broker_id: 0 });
    expect(crash.status).toBe(200);
    const r = await f.call('POST', '/sim/advance', {
      until: { trace_kind: 'controller.session-expired' },
      timeout: '30s',
    });
    expect(r.body.met).toBe(true);
    // broker.session.timeout.ms is 9 s: the session expires after that, well before the 30 s budget.
    expect(r.body.advanced_ms).toBeGreaterThan(8000);
    expect(r.body.advanced_ms).toBeLessThan(12_000);
    const never = await f.call('POST', '/sim/advance', {
      until: { partitions_led_by: { topic: 't', broker: 9 } },
      timeout: '1s',
    });
    expect(never.body).toMatchObject({ met: false });
    expect(never.body.advanced_ms).toBeCloseTo(1000, 6);
  });

  it("takes the scenario language's conditions too (the snake_case names are aliases of them)", async () => {
    await topic('t', 2);
    const led = await f.call('POST', '/sim/advance', {
      until: { ledBy: { topic: 't', broker: 9 }, underReplicated: { count: 0 } },
      timeout: '1s',
    });
    expect(led.status).toBe(200);
    expect(led.body).toMatchObject({ met: false });
    const healthy = await f.call('POST', '/sim/advance', {
      until: { underReplicated: { topic: 't', count: 0 }, fencedBrokers: { count: 0 } },
      timeout: '5s',
    });
    expect(healthy.body).toMatchObject({ met: true });
    const before = f.host.fingerprint();
    for (const until of [
      { ledBy: { topic: 'none', broker: 1 } },
      { delivery: { producer: 'p', lost: 0 } },
      { all: [{ fencedBrokers: { count: 0 } }] },
      { underReplicated: { count: 'many' } },
    ]) {
      const r = await f.call('POST', '/sim/advance', { until, timeout: '1s' });
      expect(r.status, JSON.stringify(until)).toBe(400);
    }
    expect(f.host.fingerprint()).toEqual(before);
  });

  it('refuses bad advances without moving the clock', async () => {
    const before = f.host.fingerprint();
    for (const body of [
      {},
      { duration: '1s', until: { reassignments_done: true } },
      { duration: 'soon' },
      { duration: '2h' },
      { until: {} },
      { until: { workload_done: 'nope' } },
      { until: { partitions_led_by: { topic: 'none', broker: 1 } } },
      { duration: '1s', timeout: '2s' },
    ]) {
      const r = await f.call('POST', '/sim/advance', body);
      expect(r.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    expect(f.host.fingerprint()).toEqual(before);
  });
});

describe('faults', () => {
  it('crashes and restarts a broker; the controller fences it then lets it back', async () => {
    await f.call('POST', '/sim/faults/crash-broker', { broker_id: 2 });
    expect(f.host.cluster.broker(2).up).toBe(false);
    const faults = await f.call('GET', '/sim/faults');
    expect(faults.body.crashed).toEqual([2]);
    await f.call('POST', '/sim/advance', { duration: '15s' });
    expect(f.host.cluster.image.brokers[2]!.fenced).toBe(true);
    expect(
      (await f.call('GET', `${f.base}/brokers`)).body.data.map((b: { broker_id: number }) => b.broker_id),
    ).toEqual([0, 1]);
    await f.call('POST', '/sim/faults/restart-broker', { broker_id: 2 });
    const r = await f.call('POST', '/sim/advance', { until: { brokers_unfenced: true }, timeout: '30s' });
    expect(r.body.met).toBe(true);
    expect((await f.call('POST', '/sim/faults/crash-broker', { broker_id: 9 })).status).toBe(404);
  });

  it('partitions, isolates, drops one way, slows, drops at random and heals', async () => {
    const ok = async (path: string, body?: unknown) => {
      const r = await f.call('POST', `/sim/faults/${path}`, body);
      expect(r.status, path).toBe(200);
      return r;
    };
    await ok('partition', {
      groups: [
        [0, 'controller'],
        [1, 2],
      ],
    });
    expect(f.host.sim.network.reachable('broker-0', 'broker-1')).toBe(false);
    expect(f.host.sim.network.reachable('broker-0', 'controller-3000')).toBe(true);
    await ok('heal');
    expect(f.host.sim.network.reachable('broker-0', 'broker-1')).toBe(true);
    await ok('isolate', { node: 1 });
    expect(f.host.sim.network.reachable('broker-1', 'broker-2')).toBe(false);
    await ok('heal');
    await ok('drop-outbound', { from: 0, to: [1] });
    expect(f.host.sim.network.reachable('broker-0', 'broker-1')).toBe(false);
    expect(f.host.sim.network.reachable('broker-1', 'broker-0')).toBe(true);
    await ok('heal');
    await ok('slow-broker', { broker_id: 1, delay: '50ms' });
    expect((await f.call('GET', '/sim/faults')).body.slow).toEqual({ 'broker-1': 50 });
    await ok('drop-probability', { probability: 0.5 });
    expect((await f.call('GET', '/sim/faults')).body.dropProbability).toBe(0.5);
    expect((await f.call('POST', '/sim/faults/isolate', { node: 'nobody' })).status).toBe(400);
    expect((await f.call('POST', '/sim/faults/drop-probability', { probability: 2 })).status).toBe(400);
  });
});

describe('workloads', () => {
  it("runs kafka-producer-perf-test and serves the tool's lines", async () => {
    await topic('perf', 4);
    const created = await f.call('POST', '/sim/workloads', {
      kind: 'producer-perf',
      topic: 'perf',
      num_records: 20_000,
      throughput: 2_000,
      record_size: 100,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'perf-producer', kind: 'producer-perf', state: 'running' });
    const adv = await f.call('POST', '/sim/advance', {
      until: { workload_done: 'perf-producer' },
      timeout: '60s',
    });
    expect(adv.body.met).toBe(true);
    const out = await f.call('GET', '/sim/workloads/perf-producer/output');
    expect(out.body.done).toBe(true);
    const lines = out.body.chunks.map((c: { text: string }) => c.text);
    expect(lines[0]).toMatch(
      /^\d+ records sent, [\d.]+ records\/sec \([\d.]+ MB\/sec\), [\d.]+ ms avg latency, [\d.]+ ms max latency\.\n$/,
    );
    expect(lines.at(-1)).toMatch(/^20000 records sent, [\d.]+ records\/sec .* ms 99\.9th\.\n$/);
    const again = await f.call('GET', `/sim/workloads/perf-producer/output?from=${out.body.next}`);
    expect(again.body.chunks).toEqual([]);
    expect(f.host.cluster.deliveryReport('perf-producer')).toMatchObject({
      acknowledged: 20_000,
      lost: 0,
      duplicated: 0,
    });
    const p = f.host.world.workloads.get('perf-producer') as unknown as {
      producer: { config: Record<string, unknown> };
    };
    expect(p.producer.config['client.id']).toBe(PRODUCER_PERF_CLIENT_ID);
    const second = await f.call('POST', '/sim/workloads', {
      kind: 'producer-perf',
      topic: 'perf',
      num_records: 10,
      throughput: -1,
      record_size: 10,
      start: false,
    });
    expect(second.body).toMatchObject({ name: 'perf-producer-2', state: 'created' });
    expect((await f.call('POST', '/sim/workloads/perf-producer-2/start')).body.state).toBe('running');
    expect((await f.call('GET', '/sim/workloads')).body.data).toHaveLength(2);
  });

  it('runs kafka-consumer-perf-test with detailed rows', async () => {
    await topic('cp', 2);
    await f.call('POST', '/sim/workloads', {
      kind: 'producer',
      name: 'load',
      topic: 'cp',
      rate: 1000,
      record_size: 200,
    });
    await f.call('POST', '/sim/workloads', {
      kind: 'consumer-perf',
      topic: 'cp',
      messages: 8000,
      reporting_interval_ms: 1000,
      show_detailed_stats: true,
      timeout_ms: 20000,
    });
    await f.call('POST', '/sim/advance', { until: { workload_done: 'perf-consumer' }, timeout: '60s' });
    const out = (await f.call('GET', '/sim/workloads/perf-consumer/output')).body;
    const text = out.chunks.map((c: { text: string }) => c.text).join('');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const row of lines.slice(1))
      expect(row).toMatch(
        /^2026-01-01 \d\d:\d\d:\d\d:\d{3}, 0, \d+\.\d{4}, \d+\.\d{4}, \d+, \d+\.\d{4}, \d+, \d+, \d+\.\d{4}, \d+\.\d{4}$/,
      );
    expect((await f.call('POST', '/sim/workloads/load/stop')).body.state).toBe('stopped');
  });

  it('refuses bad workloads without changing the simulation', async () => {
    await topic('w', 1);
    const before = f.host.fingerprint();
    const bad = [
      { kind: 'producer-perf', topic: 'w' },
      { kind: 'producer-perf', topic: 'nope', num_records: 1, throughput: 1, record_size: 1 },
      { kind: 'producer-perf', topic: 'w', num_records: 1, throughput: 0, record_size: 1 },
      {
        kind: 'producer-perf',
        topic: 'w',
        num_records: 1,
        throughput: 1,
        record_size: 1,
        producer_props: { acks: '7' },
      },
      { kind: 'producer-perf', topic: 'w', num_records: 1, throughput: 1, record_size: 1, name: 'broker-0' },
      { kind: 'bogus', topic: 'w' },
      { kind: 'consumer', topic: 'w', name: 'has space' },
    ];
    for (const body of bad) {
      const r = await f.call('POST', '/sim/workloads', body);
      expect(r.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    expect((await f.call('GET', '/sim/workloads/none')).status).toBe(404);
    expect(f.host.fingerprint()).toEqual(before);
  });
});

describe('state', () => {
  it('snapshot, request log, tool views', async () => {
    await topic('s', 2);
    const snap = (await f.call('GET', '/sim/snapshot')).body;
    expect(snap).toMatchObject({ cluster_id: f.cid, seed: '3', storage: 'kafka', requests: 1 });
    expect(snap.brokers).toHaveLength(3);
    expect(Object.keys(snap.metadata.topics)).toEqual(['s']);
    const log = (await f.call('GET', '/sim/requests')).body;
    expect(log.version).toBe(1);
    expect(log.world).toEqual({ seed: 3, brokers: 3 });
    expect(log.entries[0]).toMatchObject({
      seq: 1,
      method: 'POST',
      url: `${f.base}/topics`,
      body: { topic_name: 's', partitions_count: 2 },
    });
    expect(log.entries[0].hashAfter).toBe(f.host.sim.trace.hash);
    const views = (await f.call('GET', '/sim/views/topics')).body.topics;
    expect(views[0]).toMatchObject({ name: 's', configs: [['segment.bytes', '1073741824']] });
    expect(views[0].partitions).toHaveLength(2);
    expect(views[0].topicId).toBe(f.host.cluster.image.topics.s!.topicId);
  });

  it('snapshot shows a crashed broker as the controller has it: fenced once its session expired', async () => {
    const fencedOf = async (id: number) =>
      ((await f.call('GET', '/sim/snapshot')).body.brokers as { broker_id: number; fenced: boolean }[]).find(
        (b) => b.broker_id === id,
      )!.fenced;
    expect(await fencedOf(2)).toBe(false);
    expect((await f.call('POST', '/sim/faults/crash-broker', { broker_id: 2 })).status).toBe(200);
    // broker.session.timeout.ms is 9 s: the controller fences it then; the dead broker itself never hears.
    expect((await f.call('POST', '/sim/advance', { duration: '20s' })).status).toBe(200);
    expect(f.host.cluster.image.brokers[2]!.fenced).toBe(true);
    expect(await fencedOf(2)).toBe(true);
    expect(await fencedOf(1)).toBe(false);
  });

  it('loads a scenario, replacing the simulation; refuses invalid ones and file references', async () => {
    const yaml =
      'name: served\nseed: 11\ncluster: {brokers: 2, storage: shared}\ntopics: [{name: t, partitions: 4}]\nclients:\n  perfProducers:\n    - {name: pp, topic: t, numRecords: 100, throughput: 100, recordSize: 10, autoStart: true}\ntimeline: []\n';
    const r = await f.call('POST', '/sim/scenario', { yaml });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      seed: '11',
      scenario: 'served',
      workloads: [{ name: 'pp', state: 'running' }],
    });
    expect(f.host.cluster.storage).toBe('shared');
    expect(f.host.cluster.image.topics.t!.partitions).toHaveLength(4);
    const cid = r.body.cluster_id;
    expect((await f.call('GET', `/v3/clusters/${cid}/topics/t`)).status).toBe(200);
    const invalid = await f.call('POST', '/sim/scenario', { yaml: 'name: x\ntimeline: 3\n' });
    expect(invalid.status).toBe(400);
    const file = await f.call('POST', '/sim/scenario', {
      yaml: 'name: x\ntimeline:\n  - reassign: {file: /etc/passwd}\n',
    });
    expect(file.status).toBe(400);
    expect(file.body.message).toMatch(/cannot read files/);
  });

  it('serves the trace as a JSONL download', async () => {
    await topic('j', 1);
    const r = await f.app.inject({ method: 'GET', url: '/sim/trace.jsonl?kind=controller.&limit=5' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/x-ndjson/);
    expect(r.headers['content-disposition']).toMatch(/attachment; filename="kafkasim-trace-3.jsonl"/);
    const events = r.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(5);
    expect(events.every((e) => e.kind.startsWith('controller.'))).toBe(true);
  });
});

describe('metrics, OpenAPI, optional modules, auth', () => {
  it('serves Prometheus text', async () => {
    await topic('m', 3);
    const r = await f.app.inject({ method: 'GET', url: '/metrics' });
    expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.body).toMatch(/^# HELP kafkasim_virtual_time_seconds /m);
    expect(r.body).toMatch(/^kafkasim_partitions 3$/m);
    expect(r.body).toMatch(/^kafkasim_broker_up\{broker="0"\} 1$/m);
    expect(r.body).toMatch(/^kafkasim_partition_high_watermark\{topic="m",partition="0"\} 0$/m);
    for (const line of r.body.trimEnd().split('\n'))
      expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[\d.e+-]+|NaN)$/);
  });

  it('generates the OpenAPI document from the route schemas and serves the docs page', async () => {
    const doc = (await f.call('GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.0.3');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v3/clusters/{cluster_id}/topics', '/sim/advance', '/metrics']),
    );
    const create = doc.paths['/v3/clusters/{cluster_id}/topics'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['topic_name']);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['200', '201', '4XX']));
    const docs = await f.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toMatch(/swagger-ui/i);
  });

  it('answers the balancer routes with 501 when the auto-balancer does not run', async () => {
    for (const [method, url] of [
      ['GET', '/kafkacruisecontrol/state'],
      ['GET', '/kafkacruisecontrol/load'],
      ['GET', '/kafkacruisecontrol/partition_load'],
      ['GET', '/kafkacruisecontrol/proposals'],
      ['POST', '/kafkacruisecontrol/rebalance?dryrun=true'],
    ] as const) {
      const r = await f.call(method, url);
      expect(r.status, url).toBe(501);
      expect(r.body).toEqual({ error_code: 501, message: expect.stringMatching(/--autobalancer/) });
    }
  });

  it("serves the auto-balancer under Cruise Control's names when it runs", async () => {
    const b = await fixture({ seed: 5, brokers: 3, storage: 'shared', autobalancer: true });
    try {
      await b.call('POST', `${b.base}/topics`, {
        topic_name: 'hot',
        replicas_assignments: [0, 1, 2, 3, 4, 5].map((p) => ({ partition_id: p, broker_ids: [0] })),
      });
      await b.call('POST', '/sim/workloads', {
        kind: 'producer',
        topic: 'hot',
        rate: 5000,
        record_size: 1024,
      });
      await b.call('POST', '/sim/advance', { duration: '3m' });
      const state = await b.call('GET', '/kafkacruisecontrol/state');
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ MonitorState: { state: 'RUNNING' }, version: 1 });
      expect(state.body.AnomalyDetectorState.detects).toBeGreaterThan(0);
      const load = await b.call('GET', '/kafkacruisecontrol/load?json=true');
      expect(load.body.brokers.map((x: { Broker: number }) => x.Broker)).toEqual([0, 1, 2]);
      expect(load.body.brokers.reduce((n: number, x: { Leaders: number }) => n + x.Leaders, 0)).toBe(6);
      const partitions = await b.call('GET', '/kafkacruisecontrol/partition_load');
      expect(partitions.body.records).toHaveLength(6);
      const proposals = await b.call('GET', '/kafkacruisecontrol/proposals');
      expect(proposals.body).toMatchObject({
        version: 1,
        summary: { numReplicaMovements: expect.any(Number) },
      });
      expect((await b.call('POST', '/kafkacruisecontrol/rebalance?dryrun=true')).status).toBe(200);
      expect((await b.call('POST', '/kafkacruisecontrol/rebalance?dryrun=false')).status).toBe(400);
      // The balancer moved partitions off the hot broker on its own.
      expect(b.host.cluster.balancer!.executedMoves().length).toBeGreaterThan(0);
    } finally {
      await b.close();
    }
  });

  it("serves the Lake's Databend API: health, Basic auth, SQL, and an outage", async () => {
    const health = await f.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.body).toBe('ok');
    const denied = await f.call('POST', '/v1/query', { sql: 'SELECT 1' });
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe(5100);
    // Databend's default root with an empty password is not accepted.
    const root = { authorization: `Basic ${Buffer.from('root:').toString('base64')}` };
    const rootTry = await f.app.inject({
      method: 'POST',
      url: '/v1/query',
      payload: { sql: 'SELECT 1 AS one' },
      headers: root,
    });
    expect(rootTry.statusCode).toBe(401);
    const ok = await f.app.inject({
      method: 'POST',
      url: '/v1/query',
      payload: { sql: 'SELECT 1 AS one' },
      headers: LAKE_AUTH,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ state: 'Succeeded', data: [['1']] });
    expect((await f.call('POST', '/v1/query', { nosql: 1 })).status).toBe(400);
    expect((await f.call('POST', '/sim/faults/lake-outage', { down: true })).status).toBe(200);
    expect((await f.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
    expect((await f.call('POST', '/sim/faults/lake-outage', { down: false })).status).toBe(200);
    expect((await f.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('with a token, every route but /health needs it', async () => {
    const t = await fixture({ seed: 1, brokers: 1 }, 's3cret');
    try {
      const no = await t.app.inject({ method: 'GET', url: '/v3/clusters' });
      expect(no.statusCode).toBe(401);
      expect(no.json()).toEqual({
        error_code: 401,
        message: 'Unauthorized: this server needs "Authorization: Bearer <token>"',
      });
      expect(no.headers['www-authenticate']).toBe('Bearer realm="kafkasim"');
      const wrong = await t.app.inject({
        method: 'GET',
        url: '/sim/clock',
        headers: { authorization: 'Bearer nope' },
      });
      expect(wrong.statusCode).toBe(401);
      const ok = await t.app.inject({
        method: 'GET',
        url: '/v3/clusters',
        headers: { authorization: 'Bearer s3cret' },
      });
      expect(ok.statusCode).toBe(200);
      const health = await t.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).not.toBe(401);
      const post = await t.app.inject({
        method: 'POST',
        url: '/sim/step',
        headers: { 'content-type': 'application/json' },
      });
      expect(post.statusCode).toBe(401);
      expect(t.host.log).toHaveLength(0);
    } finally {
      await t.close();
    }
  });

  it('refuses bodies above the limit with 413 and the error body', async () => {
    const r = await f.app.inject({
      method: 'POST',
      url: '/sim/scenario',
      payload: JSON.stringify({ yaml: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.statusCode).toBe(413);
    expect(r.json().error_code).toBe(413);
  });
});
