// Who may talk to the server, and in what shape, checked before any route runs:
// - the Host header must name this server (a loopback name, an IP literal, the address it listens on, or a
//   name given with --allowed-hosts), so that a web page whose domain is re-pointed at 127.0.0.1 (DNS
//   rebinding) is refused;
// - with a token, every route but /health needs it (`Authorization: Bearer T`, or `X-Kafkasim-Token: T` where
//   Authorization carries the Lake's Basic credentials);
// - every POST must say `Content-Type: application/json`, which a cross-site form or a no-cors fetch cannot
//   send without a CORS preflight (that this server never answers), so a web page cannot drive the server;
// - JSON bodies are parsed here: at most MAX_BODY_DEPTH levels deep, no `__proto__` / `constructor` /
//   `prototype` key anywhere, an empty body reads as none;
// - a known path asked with a method it does not serve answers 405 with `Allow`.
// The reasoning follows the OWASP cheat sheets on CSRF ("Employing Custom Request Headers for AJAX/API") and
// the DNS rebinding defence of checking Host (https://en.wikipedia.org/wiki/DNS_rebinding#Protection).
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORBIDDEN_CONFIG_NAMES } from '../../models/metadata/index.ts';
import type { ErrorBody } from './errors.ts';
import { isUiAssetPath } from './ui/static.ts';

/** Nesting deeper than this is refused (no route takes more than a few levels). */
export const MAX_BODY_DEPTH = 32;
/** Keys no JSON body may hold: they reach Object.prototype when merged into a plain object. */
const FORBIDDEN_KEYS = FORBIDDEN_CONFIG_NAMES;
/** The header that carries the token on routes whose Authorization is the Lake's Basic auth. */
export const TOKEN_HEADER = 'x-kafkasim-token';

export interface AccessOptions {
  /** Every route but /health needs it. */
  token?: string;
  /** Host names (beyond loopback names and IP literals) the Host header may carry; `.example.com` matches subdomains. */
  allowedHosts?: readonly string[];
  /** The address the server listens on (a name there is allowed too). */
  listenHost?: string;
}

/** Routes that answer without a token: they carry no state (see docs/security.md): /health and the UI's files. */
export function isPublicPath(path: string): boolean {
  return path === '/health' || isUiAssetPath(path);
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The host name of a Host header (`[::1]:8082` -> `::1`, `Example.com:80` -> `example.com`). */
export function hostNameOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(1, end);
  }
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/** Whether a Host header names this server. */
export function hostAllowed(header: string | undefined, options: AccessOptions): boolean {
  if (header === undefined || header === '') return false;
  const name = hostNameOf(header);
  if (name === '' || /[^a-z0-9.:_-]/.test(name)) return false;
  if (isIP(name) !== 0) return true;
  if (name === 'localhost' || name === 'localhost.') return true;
  if (options.listenHost !== undefined && name === options.listenHost.toLowerCase()) return true;
  for (const allowed of options.allowedHosts ?? []) {
    const a = allowed.toLowerCase();
    if (a === name || (a.startsWith('.') && (name.endsWith(a) || name === a.slice(1)))) return true;
  }
  return false;
}

function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether the request carries the token (as a bearer token, or in X-Kafkasim-Token). */
export function hasToken(req: FastifyRequest, token: string): boolean {
  const header = req.headers[TOKEN_HEADER];
  if (typeof header === 'string' && sameSecret(header, token)) return true;
  const auth = req.headers.authorization;
  return typeof auth === 'string' && sameSecret(auth, `Bearer ${token}`);
}

function refuse(reply: FastifyReply, status: number, body: ErrorBody, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).send(body);
}

/** A path of keys to the first forbidden key or the first value nested too deep; undefined when fine. */
export function bodyProblem(value: unknown): string | undefined {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: 'body' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) return `${path}: the body is nested more than ${MAX_BODY_DEPTH} levels deep`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key)) return `${path}: the key '${key}' is not allowed`;
      stack.push({ v: (v as Record<string, unknown>)[key], depth: depth + 1, path: `${path}.${key}` });
    }
  }
  return undefined;
}

class BodyError extends Error {
  readonly statusCode = 400;
}

/** Installs the checks above on a server (before any route is registered). */
export function installAccessControl(app: FastifyInstance, options: AccessOptions): void {
  app.addHook('onRequest', async (req, reply) => {
    if (!hostAllowed(req.headers.host, options)) {
      const name = req.headers.host === undefined ? '' : hostNameOf(req.headers.host);
      return refuse(reply, 403, {
        error_code: 403,
        message:
          `Forbidden: the Host header '${name.slice(0, 100)}' does not name this server ` +
          '(use its address, localhost, or a name given with --allowed-hosts)',
      });
    }
    const path = pathOf(req.url);
    if (options.token !== undefined && !isPublicPath(path) && !hasToken(req, options.token)) {
      return refuse(
        reply,
        401,
        {
          error_code: 401,
          message: 'Unauthorized: this server needs "Authorization: Bearer <token>"',
        },
        { 'www-authenticate': 'Bearer realm="kafkasim"' },
      );
    }
    if (req.method === 'POST') {
      const type = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (type !== 'application/json')
        return refuse(reply, 415, {
          error_code: 415,
          message: `Unsupported Media Type: every POST must be sent as "Content-Type: application/json"${
            type ? `, not '${type.slice(0, 100)}'` : ''
          } (send {} or nothing for a request without parameters)`,
        });
    }
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const body = text as string;
    if (body.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (e) {
      return done(new BodyError(`the body is not JSON: ${(e as Error).message}`), undefined);
    }
    const problem = bodyProblem(value);
    if (problem !== undefined) return done(new BodyError(problem), undefined);
    return done(null, value);
  });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods a path is served with (empty when the path is unknown). */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  const path = pathOf(url);
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

/** The not-found handler: 405 with Allow for a known path asked with another method, else 404. */
export function notFoundOrWrongMethod(app: FastifyInstance) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    const allow = allowedMethods(app, req.url);
    if (allow.length > 0)
      return refuse(
        reply,
        405,
        {
          error_code: 405,
          message: `Method Not Allowed: ${req.url.split('?')[0]} answers ${allow.join(', ')}`,
        },
        { allow: allow.join(', ') },
      );
    return refuse(reply, 404, { error_code: 404, message: 'HTTP 404 Not Found' });
  };
}
