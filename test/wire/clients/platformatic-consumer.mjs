// A consumer-protocol (KIP-848) group member written with @platformatic/kafka, a Kafka client nobody here wrote,
// run by Node 22 (which it needs) against kafkasim's Kafka listener. It prints one JSON line per thing the test
// checks: its assignment whenever it changes, and every record it consumes. It leaves the group when its stdin
// closes or it is sent SIGTERM.
//   node22 platformatic-consumer.mjs <@platformatic/kafka entry> <bootstrap> <group> <topic> <clientId>
const [lib, bootstrap, groupId, topic, clientId] = process.argv.slice(2);
const { Consumer, stringDeserializers } = await import(lib);

let closing = false;
const print = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
/** An error and what caused it (the client wraps the broker's answers in `errors` / `cause`). */
const describeError = (e, depth = 0) =>
  depth > 3 || !e
    ? ''
    : `${e instanceof TypeError ? e.stack.split('\n').slice(0, 3).join(' ') : (e.message ?? e)}${e.code ? ` [${e.code}]` : ''}${e.response?.errorCode ? ` (errorCode ${e.response.errorCode})` : ''}${
        e.errors ? ` <- ${[...new Set(e.errors.map((x) => describeError(x, depth + 1)))].join('; ')}` : ''
      }${e.cause ? ` <- ${describeError(e.cause, depth + 1)}` : ''}`;
const consumer = new Consumer({
  groupId,
  clientId,
  bootstrapBrokers: bootstrap.split(','),
  deserializers: stringDeserializers,
  groupProtocol: 'consumer',
  // With its default (5 s) this client (2.12.1) crashes when the coordinator assigns it a partition added since its
  // last metadata read (a TypeError in getFetchNode: its cached metadata lacks the partition), as it would against
  // Kafka; kafkasim found that. A 300 ms cache reads the new partitions before it fetches from them.
  metadataMaxAge: 300,
  maxWaitTime: 200,
  retries: 20,
  retryDelay: 200,
});
consumer.on('error', (e) => print({ error: describeError(e) }));

// The client's message stream can die on its own race: a fetch built right after the coordinator assigns new
// partitions, before the stream has looked up their offsets, sends an undefined offset (a TypeError in
// writeBigInt64BE) and the stream closes, which also drops the subscription. An application would consume again;
// so does this member, after reporting it.
let stream;
async function consume() {
  stream = await consumer.consume({
    topics: [topic],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: 200,
  });
  stream.on('data', (m) => print({ record: m.value, partition: m.partition, offset: String(m.offset) }));
  stream.on('error', (e) => print({ error: describeError(e) }));
  stream.on('close', () => {
    if (closing) return;
    print({ error: 'the message stream closed; consuming again' });
    setTimeout(() => consume().catch((e) => print({ error: describeError(e) })), 200);
  });
}
await consume();
let last = '';
const timer = setInterval(() => {
  const a = (consumer.assignments ?? [])
    .flatMap((x) => x.partitions.map((p) => `${x.topic}-${p}`))
    .sort()
    .join(',');
  if (a !== last) print({ assignment: a === '' ? [] : a.split(','), memberId: consumer.memberId });
  last = a;
}, 100);

async function close() {
  if (closing) return;
  closing = true;
  clearInterval(timer);
  await stream.close().catch(() => {});
  await consumer.close(true).catch(() => {});
  print({ closed: true });
  process.exit(0);
}
process.on('SIGTERM', close);
process.stdin.on('end', close);
process.stdin.resume();
