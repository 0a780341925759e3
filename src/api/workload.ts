// What a workload of a served simulation is (a client the server runs on request: a perf-test run, a steady
// producer, a consumer, the ingest service), the output it keeps as the real tool would write it (chunks tagged
// stdout/stderr), and the registry of one world's workloads by name. The workloads themselves are in workloads.ts.
import type { Cluster } from '../cluster/index.ts';
import { badRequest, conflict, notFound } from './errors.ts';

export type WorkloadKind =
  | 'producer-perf'
  | 'consumer-perf'
  | 'producer'
  | 'consumer'
  | 'ingest'
  | 'explicit-producer';
export type WorkloadState = 'created' | 'running' | 'done' | 'stopped';

export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

/** What one request may ask a workload to do (bounds on work, not on realism). */
export const WORKLOAD_LIMITS = {
  maxWorkloads: 100,
  maxRecords: 100_000_000,
  maxThroughput: 1_000_000,
  maxRecordSize: 10_485_760,
  /** Output chunks kept per workload; older ones are dropped (the output offset keeps counting). */
  maxChunks: 20_000,
} as const;

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

export abstract class Workload {
  private chunks: OutputChunk[] = [];
  /** Absolute index of chunks[0] (chunks before it were dropped). */
  private base = 0;
  protected started = false;
  protected stopped = false;

  constructor(
    readonly name: string,
    readonly kind: WorkloadKind,
    readonly topic: string,
  ) {}

  abstract readonly done: boolean;
  abstract stats(): Record<string, number | string | boolean | null>;
  protected abstract onStart(cluster: Cluster): void;
  protected abstract onStop(): void;

  get state(): WorkloadState {
    if (this.done) return 'done';
    if (this.stopped) return 'stopped';
    return this.started ? 'running' : 'created';
  }

  start(cluster: Cluster): void {
    if (this.started) throw conflict(`workload '${this.name}' was already started`);
    this.started = true;
    this.onStart(cluster);
  }

  stop(): void {
    if (!this.started) throw conflict(`workload '${this.name}' has not been started`);
    if (this.stopped || this.done) return;
    this.stopped = true;
    this.onStop();
  }

  protected print(stream: OutputChunk['stream'], text: string): void {
    this.chunks.push({ stream, text });
    if (this.chunks.length > WORKLOAD_LIMITS.maxChunks) {
      const drop = this.chunks.length - WORKLOAD_LIMITS.maxChunks / 2;
      this.chunks = this.chunks.slice(drop);
      this.base += drop;
    }
  }

  /** Output from absolute chunk index `from` on; `next` is where the following read starts. */
  output(from: number): { chunks: OutputChunk[]; next: number; dropped: number } {
    const start = Math.max(from, this.base);
    return {
      chunks: this.chunks.slice(start - this.base),
      next: this.base + this.chunks.length,
      dropped: Math.max(0, this.base - from),
    };
  }

  view(): WorkloadView {
    return {
      name: this.name,
      kind: this.kind,
      topic: this.topic,
      state: this.state,
      output_chunks: this.base + this.chunks.length,
      stats: this.stats(),
    };
  }
}

export interface WorkloadView {
  name: string;
  kind: WorkloadKind;
  topic: string;
  state: WorkloadState;
  output_chunks: number;
  stats: Record<string, number | string | boolean | null>;
}

/** The workloads of one simulated world, by name. */
export class WorkloadRegistry {
  private readonly byName = new Map<string, Workload>();

  constructor(private readonly cluster: Cluster) {}

  list(): Workload[] {
    return [...this.byName.values()];
  }

  get(name: string): Workload {
    const w = this.byName.get(name);
    if (!w) throw notFound(`Workload '${name}' cannot be found.`);
    return w;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** A name not used by a workload or a network node: `base`, then `base-2`, `base-3`... */
  freeName(base: string): string {
    for (let i = 1; ; i++) {
      const name = i === 1 ? base : `${base}-${i}`;
      if (!this.byName.has(name) && !this.cluster.sim.network.has(name)) return name;
    }
  }

  /** Checks a requested name (throws 400/409) so that a rejected request changes nothing. */
  checkName(name: string): void {
    if (!NAME.test(name)) throw badRequest(`workload name '${name}' must match ${NAME.source}`);
    if (this.byName.has(name) || this.cluster.sim.network.has(name))
      throw conflict(`the name '${name}' is already used by a workload or a simulated node`);
    if (this.byName.size >= WORKLOAD_LIMITS.maxWorkloads)
      throw badRequest(`at most ${WORKLOAD_LIMITS.maxWorkloads} workloads per simulation`);
  }

  add(workload: Workload): Workload {
    this.checkName(workload.name);
    this.byName.set(workload.name, workload);
    return workload;
  }

  start(name: string): Workload {
    const w = this.get(name);
    w.start(this.cluster);
    return w;
  }
}
