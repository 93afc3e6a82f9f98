import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import { LISTEN_ORIGIN } from '../testing/test-app.js';
import { testPolicy } from '../testing/test-policy.js';
import { corsForAllowedOrigins } from './cors-for-allowed-origins.js';

const DEV_SERVER = 'http://localhost:5173';

const app = new Hono<WebuiEnv>()
  .use((c, next) => {
    c.set('secureTransport', false);
    return next();
  })
  .use(corsForAllowedOrigins(testPolicy({ allowedOrigins: [DEV_SERVER] })))
  .use('/refused', (c) => Promise.resolve(c.json({ code: 'not_authenticated' }, 401)))
  .get('/refused', (c) => c.json({ never: true }))
  .get('/open', (c) => c.json({ ok: true }));

describe('corsForAllowedOrigins (docs/decisions/0009-csrf-and-dns-rebinding.md)', () => {
  it('adds no CORS header to a request without Origin', async () => {
    const res = await app.request('/open');
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control') || name === 'vary')).toEqual([]);
  });

  it('echoes an allowed origin, the listen origins and the Host the request addressed, with credentials', async () => {
    for (const [origin, host] of [
      [DEV_SERVER, '127.0.0.1:8001'],
      [LISTEN_ORIGIN, 'other:1'],
      ['http://localhost:8001', 'localhost:8001'],
    ]) {
      const res = await app.request('/open', { headers: { origin: origin as string, host: host as string } });
      expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('vary')).toMatch(/Origin/);
    }
  });

  it("carries the allowance onto a later step's refusal, so the dashboard can read it", async () => {
    const res = await app.request('/refused', { headers: { origin: DEV_SERVER } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(DEV_SERVER);
  });

  it('answers a preflight: allowed origins get the methods and headers, foreign ones no allowance', async () => {
    const preflight = (origin: string) =>
      app.request('/open', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    const allowed = await preflight(DEV_SERVER);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET,POST,DELETE,OPTIONS');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('Content-Type,Authorization');
    expect(allowed.headers.get('access-control-max-age')).toBe('600');
    expect((await preflight('http://localhost:6666')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it("with an upstream behind, the preflight also allows the bot's own API methods (PUT, PATCH)", async () => {
    const forwarding = new Hono<WebuiEnv>()
      .use((c, next) => {
        c.set('secureTransport', false);
        return next();
      })
      .use(corsForAllowedOrigins(testPolicy({ allowedOrigins: [DEV_SERVER] }), true));
    const res = await forwarding.request('/x', {
      method: 'OPTIONS',
      headers: { origin: DEV_SERVER, 'access-control-request-method': 'PATCH' },
    });
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS');
  });
});
