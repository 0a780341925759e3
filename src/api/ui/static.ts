// The web UI's files (dist/ui/, built by scripts/build-ui.mjs): the page at `/`, its script and styles under
// `/ui/`. They carry no state, so they are served without the token (docs/security.md); everything the page
// shows comes from the API, with the token, which the page takes from the URL's fragment (`#token=...`, never
// sent to the server). The files are read once, when the server starts; a build without them serves a page
// that says how to build them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packageFile } from '../../package-files.ts';

/** The folder the UI is built into. */
export const UI_DIR = packageFile('dist', 'ui');

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** Paths the UI's files are served at (public: no token). */
export function isUiAssetPath(path: string): boolean {
  return path === '/' || path === '/ui/app.js' || path === '/ui/app.css';
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>kafkasim</title>
<p>The web UI is not built in this checkout: run <code>npm run build</code> (or <code>node scripts/build-ui.mjs</code>).
The HTTP API is served as usual; see <a href="/docs">/docs</a>.</p>`;

// The page runs only its own script and talks only to this server.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

export function registerUiRoutes(app: FastifyInstance, dir = UI_DIR): void {
  const files = new Map<string, Buffer>();
  for (const name of Object.keys(TYPES)) {
    const path = join(dir, name);
    if (existsSync(path)) files.set(name, readFileSync(path));
  }
  const serve = (name: string, reply: FastifyReply) => {
    const body = files.get(name);
    if (!body) {
      return reply
        .code(name === 'index.html' ? 200 : 404)
        .headers(SECURITY_HEADERS)
        .type(name === 'index.html' ? TYPES['index.html']! : 'application/json')
        .send(name === 'index.html' ? NOT_BUILT : { error_code: 404, message: 'the web UI is not built' });
    }
    return reply.headers(SECURITY_HEADERS).type(TYPES[name]!).send(body);
  };
  const hide = { schema: { hide: true } };
  app.get('/', hide, (_req, reply) => serve('index.html', reply));
  app.get('/ui/app.js', hide, (_req, reply) => serve('app.js', reply));
  app.get('/ui/app.css', hide, (_req, reply) => serve('app.css', reply));
}
