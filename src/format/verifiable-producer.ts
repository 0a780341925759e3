// The VerifiableProducer's output (apache/kafka `tools/src/main/java/org/apache/kafka/tools/VerifiableProducer.java`):
// one JSON object per line, `timestamp` (epoch ms) and `name` first, then the event's fields, written by Jackson,
// so a Java double always has a fractional part (`1.0`, not `1`). Events: startup_complete, producer_send_success
// (key, value, partition, topic, offset), producer_send_error, shutdown_complete, tool_data (sent, acked,
// target_throughput, avg_throughput). Field order as the tool prints them (e.g. Kafka 2.8:
// `{"timestamp":1633505763571,"name":"producer_send_success","key":null,"value":"0","partition":0,"topic":"kafka.test","offset":4}`).

/** Fields written as a Java double. */
const DOUBLES = new Set(['avg_throughput']);

export function formatVerifiableProducerEvent(
  timestampMs: number,
  name: string,
  fields: Readonly<Record<string, unknown>> = {},
): string {
  const parts = [`"timestamp":${timestampMs}`, `"name":${JSON.stringify(name)}`];
  for (const [k, v] of Object.entries(fields)) {
    const text =
      DOUBLES.has(k) && typeof v === 'number' && Number.isInteger(v) ? `${v}.0` : JSON.stringify(v ?? null);
    parts.push(`${JSON.stringify(k)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}
