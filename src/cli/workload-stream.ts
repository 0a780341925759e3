// Shared by the CLI commands that run a workload on a `kafkasim serve` server and stream its output
// (producer-perf-test, consumer-perf-test).
import { ApiConnectionError, ApiRequestError, type clientFor } from '../api/client.ts';
import type { CliIO } from './io.ts';

/**
 * Starts a workload on the server and streams its lines (stdout/stderr as the tool writes them) until it is done;
 * Ctrl-C stops the workload and exits 130, as the Kafka tools do. Server errors print `kafkasim <tool>: <message>`.
 */
export async function runStreamedWorkload(
  tool: string,
  io: CliIO,
  client: ReturnType<typeof clientFor>,
  body: Record<string, unknown>,
): Promise<number> {
  try {
    const workload = await client.call<{ name: string }>('POST', '/sim/workloads', body);
    let interrupted = false;
    const onSignal = () => {
      interrupted = true;
    };
    process.once('SIGINT', onSignal);
    try {
      const state = await client.followWorkload(
        workload.name,
        (c) => (c.stream === 'stdout' ? io.stdout(c.text) : io.stderr(c.text)),
        { stopped: () => interrupted },
      );
      if (interrupted) {
        await client.request('POST', `/sim/workloads/${encodeURIComponent(workload.name)}/stop`);
        return 130;
      }
      return state === 'done' ? 0 : 1;
    } finally {
      process.removeListener('SIGINT', onSignal);
    }
  } catch (e) {
    if (e instanceof ApiConnectionError || e instanceof ApiRequestError) {
      io.stderr(`kafkasim ${tool}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
