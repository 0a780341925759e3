// The UI talks to the server only through the public HTTP API, as any other client does: JSON requests with the
// token (when the server has one) and the live trace as Server-Sent Events. EventSource cannot send an
// Authorization header, so the stream is read with fetch and parsed here (the SSE wire format: `event:` and
// `data:` lines, a blank line ends an event).

/** The server's token: given once in the URL's fragment (`#token=...`, never sent to the server), then kept
 * for the tab's session. */
function readToken(): string | undefined {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem('kafkasim-token', decodeURIComponent(m[1]!));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem('kafkasim-token') ?? undefined;
}

const token = readToken();

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  if (json) h['content-type'] = 'application/json';
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(r: Response): Promise<T> {
  const text = await r.text();
  const body = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (!r.ok) {
    const message = (body as { message?: string } | undefined)?.message ?? `HTTP ${r.status}`;
    throw new ApiFailure(r.status, message);
  }
  return body as T;
}

/** A GET; `signal` ends it (a read the page gives up on fails with the abort's reason). */
export async function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  return answer<T>(await fetch(path, { headers: headers(false), ...(signal ? { signal } : {}) }));
}

/**
 * A GET that names the version the page has (`etag`, from an earlier answer): undefined when the server says it
 * is still current (304, no body), else the body and its ETag. The page keeps the ETag itself (the browser's
 * cache is bypassed), so an unchanged answer costs neither a transfer nor a parse.
 */
export async function getIfChanged<T>(
  path: string,
  etag: string | undefined,
  signal?: AbortSignal,
): Promise<{ body: T; etag: string | undefined } | undefined> {
  const h = headers(false);
  if (etag !== undefined) h['if-none-match'] = etag;
  const r = await fetch(path, { headers: h, cache: 'no-store', ...(signal ? { signal } : {}) });
  if (r.status === 304) {
    await r.text(); // empty; read to its end, or the browser counts the request as aborted
    return undefined;
  }
  return { body: await answer<T>(r), etag: r.headers.get('etag') ?? undefined };
}

/** A change: POST (PATCH, PUT, DELETE) with a JSON body; every POST carries application/json (docs/security.md). */
export async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  return answer<T>(
    await fetch(path, {
      method,
      headers: headers(true),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
}

export const post = <T>(path: string, body?: unknown) => send<T>('POST', path, body ?? {});

export interface StreamHandlers {
  event(name: string, data: string): void;
  /** The stream ended or failed; it is reopened after a second. */
  closed?(): void;
}

/** Reads `path` as an event stream until `signal` aborts; reconnects after a second when it ends. */
export function openStream(path: string, handlers: StreamHandlers, signal: AbortSignal): void {
  const run = async () => {
    try {
      const r = await fetch(path, { headers: headers(false), signal });
      if (!r.ok || !r.body) throw new Error(`HTTP ${r.status}`);
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length > 0) handlers.event(name, data.join('\n'));
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted, or the server went away: reconnect below unless aborted
    }
    handlers.closed?.();
    if (!signal.aborted) setTimeout(run, 1000);
  };
  void run();
}
