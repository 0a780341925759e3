// An in-process transport for kafkajs (its `socketFactory` option): no TCP, no wall clock. Each socket kafkajs
// opens is a connection of the same WireSession the TCP listeners use (same codec, same simulated client node,
// same models), and the bytes go both ways as in-memory frames. Time is the simulation's: `runFor` moves the
// simulation and the test's fake timers (kafkajs's heartbeats, retries and request timeouts) forward together
// in small steps, so a test runs a real kafkajs consumer group through a rebalance in virtual time, the same
// way every run for the same seed.
import { EventEmitter } from 'node:events';
import { parseDuration } from '../../models/sim/index.ts';
import type { Cluster } from '../cluster/index.ts';
import { MAX_REQUEST_BYTES } from './listener.ts';
import { WireSession } from './session.ts';

/** What kafkajs calls to open a socket (its ISocketFactory). */
export type SocketFactory = (args: {
  host: string;
  port: number;
  ssl: unknown;
  onConnect: () => void;
}) => EventEmitter;

export interface InProcessTransport {
  /** `host:port` of every broker, for kafkajs' `brokers`. */
  readonly brokers: string[];
  readonly socketFactory: SocketFactory;
  /**
   * Runs the simulation for `duration` in steps of `stepMs` (default 5 ms), advancing the test's fake timers by
   * the same amount after each step (`advanceTimers`: vitest's `vi.advanceTimersByTimeAsync`).
   */
  runFor(
    duration: number | string,
    advanceTimers: (ms: number) => Promise<unknown>,
    stepMs?: number,
  ): Promise<void>;
  /** Open connections. */
  readonly connections: number;
}

const PORT = 9092;

class InProcessSocket extends EventEmitter {
  private pending = Buffer.alloc(0);
  destroyed = false;

  constructor(
    private readonly deliver: (frame: Buffer) => void,
    private readonly onClose: () => void,
  ) {
    super();
  }

  write(data: Buffer | string, encoding?: BufferEncoding): boolean {
    if (this.destroyed) return false;
    this.pending = Buffer.concat([
      this.pending,
      typeof data === 'string' ? Buffer.from(data, encoding) : data,
    ]);
    while (this.pending.length >= 4) {
      const size = this.pending.readInt32BE(0);
      if (size < 0 || size > MAX_REQUEST_BYTES) {
        this.destroy();
        return false;
      }
      if (this.pending.length < 4 + size) break;
      const frame = Buffer.from(this.pending.subarray(4, 4 + size));
      this.pending = this.pending.subarray(4 + size);
      this.deliver(frame);
    }
    return true;
  }

  /** A frame from the simulated broker, handed over after the current event (as a socket read would be). */
  push(frame: Buffer): void {
    queueMicrotask(() => {
      if (!this.destroyed) this.emit('data', frame);
    });
  }

  end(): this {
    this.destroy();
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.onClose();
    queueMicrotask(() => this.emit('end'));
    return this;
  }

  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
}

/** kafkajs on a library cluster, in process and in virtual time. */
export function inProcessTransport(cluster: Cluster): InProcessTransport {
  const ids = [...cluster.brokers.keys()].sort((a, b) => a - b);
  const hostOf = (id: number) => `kafkasim-broker-${id}`;
  const session = new WireSession(cluster, {
    clusterId: `kafkasim-${cluster.sim.seed}`,
    addressOf: (id) => (cluster.brokers.has(id) ? { host: hostOf(id), port: PORT } : undefined),
  });
  let next = 0;
  let open = 0;
  const socketFactory: SocketFactory = ({ host, onConnect }) => {
    const brokerId = ids.find((id) => hostOf(id) === host);
    const id = `in-process-${++next}`;
    const socket = new InProcessSocket(
      (frame) => session.receive(id, frame),
      () => {
        open--;
        session.disconnect(id);
      },
    );
    if (brokerId === undefined || !cluster.brokers.get(brokerId)!.up) {
      open++;
      queueMicrotask(() => {
        socket.emit(
          'error',
          Object.assign(new Error(`connect ECONNREFUSED ${host}`), { code: 'ECONNREFUSED' }),
        );
        socket.destroy();
      });
      return socket;
    }
    open++;
    session.connect(id, brokerId, { write: (frame) => socket.push(frame), close: () => socket.destroy() });
    queueMicrotask(onConnect);
    return socket;
  };
  return {
    brokers: ids.map((id) => `${hostOf(id)}:${PORT}`),
    socketFactory,
    get connections() {
      return open;
    },
    async runFor(duration, advanceTimers, stepMs = 5) {
      const total = parseDuration(duration);
      for (let done = 0; done < total; done += stepMs) {
        const step = Math.min(stepMs, total - done);
        cluster.runFor(step);
        // A dead broker drops its connections, as the TCP listener's port does.
        for (const c of session.connections.values())
          if (c.brokerId !== undefined && !cluster.brokers.get(c.brokerId)?.up)
            session.close(c, 'broker down');
        await advanceTimers(step);
      }
    },
  };
}
