// A small HTTP client for a running `kafkasim serve`, used by the CLI's tool commands (kafkasim topics,
// reassign-partitions, consumer-groups, producer-perf-test, consumer-perf-test) and usable from scripts.
import { ExitCode, KafkasimError } from '../../models/sim/index.ts';
import type { ErrorBody } from './errors.ts';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

/** A non-2xx answer, with the server's `{error_code, message}`. */
export class ApiRequestError extends KafkasimError {
  readonly code = 'SERVER_REFUSED';
  readonly exitCode = ExitCode.failed;
  override name = 'ApiRequestError';
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The server's base URL from a `--bootstrap-server` value: `http://127.0.0.1:8082`, or `host:port` (http is
 * assumed); of a comma-separated list, the first. Throws with a readable message when it is not an address.
 */
/** The server could not be reached at all. */
export class ApiConnectionError extends KafkasimError {
  readonly code = 'SERVER_UNREACHABLE';
  readonly exitCode = ExitCode.failed;
  override name = 'ApiConnectionError';
}

export function serverUrlOf(bootstrap: string): string {
  const first = bootstrap.split(',')[0]!.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(first) ? first : `http://${first}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`'${bootstrap}' is not a server address (expected e.g. http://127.0.0.1:8082)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`'${bootstrap}': only http:// and https:// servers are supported`);
  if (url.hostname === '') throw new Error(`'${bootstrap}' has no host`);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

export class ApiClient {
  private cachedClusterId: string | undefined;
  /** The tool has not sent a change yet: its first one carries the start-up (see `tool`). */
  private toolStarting: boolean;

  constructor(
    readonly baseUrl: string,
    private readonly options: {
      token?: string;
      /**
       * The Kafka tool this client stands for (kafka-topics, ...): its first request that changes the simulation
       * carries the `kafkasim-tool` header, and the server runs the tool's start-up (kafkasim.tool.startup.ms)
       * before applying it. Reads never do (they do not change the simulation).
       */
      tool?: string;
    } = {},
  ) {
    this.toolStarting = options.tool !== undefined;
  }

  /** Sends a request; any HTTP status comes back (only a connection failure throws). */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    // The server refuses a POST that is not JSON (a cross-site page cannot send one), with a body or without.
    if (body !== undefined || method.toUpperCase() === 'POST') headers['content-type'] = 'application/json';
    if (this.toolStarting && method !== 'GET' && this.options.tool) {
      headers['kafkasim-tool'] = this.options.tool;
      this.toolStarting = false;
    }
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiConnectionError(
        `cannot reach kafkasim at ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (e as Error).message}`,
      );
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed as T };
  }

  /** Sends a request and returns the body of a 2xx answer; throws ApiRequestError otherwise. */
  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request<T>(method, path, body);
    if (res.status >= 200 && res.status < 300) return res.body;
    const err = res.body as Partial<ErrorBody> | string;
    if (typeof err === 'object' && err !== null && typeof err.error_code === 'number')
      throw new ApiRequestError(res.status, err.error_code, err.message ?? `HTTP ${res.status}`);
    throw new ApiRequestError(
      res.status,
      res.status,
      typeof err === 'string' && err ? err : `HTTP ${res.status}`,
    );
  }

  /** The id of the (only) cluster the server serves. */
  async clusterId(): Promise<string> {
    if (this.cachedClusterId === undefined) {
      const list = await this.call<{ data: { cluster_id: string }[] }>('GET', '/v3/clusters');
      const id = list.data[0]?.cluster_id;
      if (id === undefined) throw new Error(`${this.baseUrl} serves no cluster`);
      this.cachedClusterId = id;
    }
    return this.cachedClusterId;
  }

  /**
   * Streams a workload's output (the tool's lines, as they are printed in virtual time) until it is done or
   * stopped; returns its final state.
   */
  async followWorkload(
    name: string,
    onChunk: (chunk: { stream: 'stdout' | 'stderr'; text: string }) => void,
    options: { pollMs?: number; stopped?: () => boolean } = {},
  ): Promise<string> {
    let from = 0;
    for (;;) {
      const out = await this.call<{
        state: string;
        chunks: { stream: 'stdout' | 'stderr'; text: string }[];
        next: number;
        done: boolean;
      }>('GET', `/sim/workloads/${encodeURIComponent(name)}/output?from=${from}`);
      for (const c of out.chunks) onChunk(c);
      from = out.next;
      if (out.done || options.stopped?.()) return out.state;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
    }
  }

  /** `/v3/clusters/<id>` + path. */
  async clusterPath(path = ''): Promise<string> {
    return `/v3/clusters/${encodeURIComponent(await this.clusterId())}${path}`;
  }
}

/**
 * A client for a `--bootstrap-server` value; the bearer token comes from KAFKASIM_TOKEN when set. `tool` names the
 * Kafka tool the command stands for (its start-up runs on the server before its first change).
 */
export function clientFor(
  bootstrap: string,
  env: Record<string, string | undefined>,
  tool?: string,
): ApiClient {
  const token = env.KAFKASIM_TOKEN;
  return new ApiClient(serverUrlOf(bootstrap), {
    ...(token ? { token } : {}),
    ...(tool !== undefined ? { tool } : {}),
  });
}
