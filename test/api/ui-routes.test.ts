// The web UI's files: served at / and /ui/ without the token (they carry no state), with a content security policy
// that lets the page run only its own script and talk only to this server; every API route still needs the token.
import { describe, expect, it } from 'vitest';
import { isPublicPath } from '../../src/api/access.ts';
import { buildUiOnce } from '../ui/browser-helpers.ts';
import { fixture } from './fixture.ts';

describe('the web UI files', () => {
  it('are public, typed, and locked down; the API behind them needs the token', async () => {
    await buildUiOnce();
    const f = await fixture({ seed: 1, brokers: 1 }, 'secret');
    try {
      const page = await f.app.inject({ method: 'GET', url: '/', headers: { host: 'localhost' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<script src="/ui/app.js"></script>');
      expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      const js = await f.app.inject({ method: 'GET', url: '/ui/app.js' });
      expect(js.statusCode).toBe(200);
      expect(js.headers['content-type']).toMatch(/^text\/javascript/);
      expect(js.body.length).toBeGreaterThan(10_000);
      expect((await f.app.inject({ method: 'GET', url: '/ui/app.css' })).statusCode).toBe(200);
      // Nothing else under /ui is public or served; the API needs the token; a foreign Host is refused.
      expect((await f.app.inject({ method: 'GET', url: '/ui/../package.json' })).statusCode).toBe(401);
      expect((await f.app.inject({ method: 'GET', url: '/sim/snapshot' })).statusCode).toBe(401);
      expect((await f.app.inject({ method: 'GET', url: '/sim/branches' })).statusCode).toBe(401);
      expect(
        (await f.app.inject({ method: 'GET', url: '/', headers: { host: 'evil.example' } })).statusCode,
      ).toBe(403);
      expect(isPublicPath('/ui/other.js')).toBe(false);
    } finally {
      await f.close();
    }
  });
});

describe('what the UI adds to the API', () => {
  it('crashes and restarts a KRaft controller by id, and the snapshot shows controllers and traffic per link', async () => {
    const f = await fixture({ seed: 1, brokers: 3 });
    try {
      const s = (await f.call('GET', '/sim/snapshot')).body;
      expect(s.controllers).toEqual([
        expect.objectContaining({ node: 'controller-3000', status: 'up', active: true }),
      ]);
      const links = s.network.links as { from: string; to: string; sent: number }[];
      expect(links.find((l) => l.from === 'broker-0' && l.to === 'controller-3000')?.sent).toBeGreaterThan(0);
      expect((await f.call('POST', '/sim/faults/crash-controller', { controller_id: 3000 })).status).toBe(
        200,
      );
      expect((await f.call('GET', '/sim/snapshot')).body.controllers[0]).toMatchObject({
        status: 'crashed',
        active: false,
      });
      expect((await f.call('POST', '/sim/faults/restart-controller', { controller_id: 3000 })).status).toBe(
        200,
      );
      await f.call('POST', '/sim/advance', { duration: '2s' });
      expect((await f.call('GET', '/sim/snapshot')).body.controllers[0]).toMatchObject({
        status: 'up',
        active: true,
      });
      const missing = await f.call('POST', '/sim/faults/crash-controller', { controller_id: 7 });
      expect(missing.status).toBe(404);
      expect(missing.body.message).toMatch(/Controller 7 cannot be found/);
      expect(f.host.log.map((e) => e.url)).toEqual([
        '/sim/faults/crash-controller',
        '/sim/faults/restart-controller',
        '/sim/advance',
      ]);
    } finally {
      await f.close();
    }
  });
});
