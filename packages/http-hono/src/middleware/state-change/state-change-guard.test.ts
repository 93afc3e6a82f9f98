import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../../app-env.js';
import type { RefusalReason } from '../../answers/refusal-audit.js';
import { expectErrorBody, LISTEN_ORIGIN } from '../../testing/test-app.js';
import { testPolicy } from '../../testing/test-policy.js';
import { MAX_BODY_BYTES } from './body-limit.js';
import { guardStateChanges } from './state-change-guard.js';

function guarded(isForwarded?: (path: string) => boolean) {
  const refusals: Array<[string, RefusalReason]> = [];
  const app = new Hono<WebuiEnv>()
    .use((c, next) => {
      c.set('clientIp', '127.0.0.5');
      c.set('secureTransport', false);
      return next();
    })
    .use(guardStateChanges(testPolicy(), (address, reason) => refusals.push([address, reason]), isForwarded))
    .all('/state', (c) => c.json({ ok: true }))
    .all('/forwarded', async (c) => c.json({ bytes: (await c.req.text()).length }));
  return { app, refusals };
}

const FOREIGN = 'http://localhost:6666';
const big = 'x'.repeat(MAX_BODY_BYTES + 1);

describe('guardStateChanges: CSRF, then the body limit', () => {
  it('leaves GET, HEAD and OPTIONS alone, whatever their Origin', async () => {
    const { app, refusals } = guarded();
    for (const method of ['GET', 'HEAD', 'OPTIONS'])
      expect((await app.request('/state', { method, headers: { origin: FOREIGN } })).status, method).toBe(200);
    expect(refusals).toEqual([]);
  });

  it('refuses a foreign state change before its body is looked at, and audits it', async () => {
    const { app, refusals } = guarded();
    await expectErrorBody(
      await app.request('/state', { method: 'POST', body: big, headers: { origin: FOREIGN } }),
      403,
      'origin_not_allowed',
    );
    await expectErrorBody(
      await app.request('/state', { method: 'DELETE', headers: { 'sec-fetch-site': 'cross-site' } }),
      403,
      'cross_site_request',
    );
    expect(refusals).toEqual([
      ['127.0.0.5', 'origin_not_allowed'],
      ['127.0.0.5', 'cross_site_request'],
    ]);
  });

  it('limits the body of an allowed state change to 16 KiB', async () => {
    const { app } = guarded();
    await expectErrorBody(
      await app.request('/state', { method: 'POST', body: big, headers: { origin: LISTEN_ORIGIN } }),
      413,
      'payload_too_large',
    );
    expect((await app.request('/state', { method: 'POST', body: 'x', headers: { origin: LISTEN_ORIGIN } })).status).toBe(200);
  });

  it('on the paths whose bodies stream (forwarded to the upstream): CSRF only, no body limit', async () => {
    const { app, refusals } = guarded((path) => path === '/forwarded');
    const res = await app.request('/forwarded', { method: 'PUT', body: big, headers: { origin: LISTEN_ORIGIN } });
    expect(await res.json()).toEqual({ bytes: big.length });
    await expectErrorBody(
      await app.request('/forwarded', { method: 'POST', body: 'x', headers: { origin: FOREIGN } }),
      403,
      'origin_not_allowed',
    );
    await expectErrorBody(await app.request('/state', { method: 'POST', body: big }), 413, 'payload_too_large');
    expect(refusals).toEqual([['127.0.0.5', 'origin_not_allowed']]);
  });

  it('an OPTIONS on a forwarded path is a state change: CSRF applies, its body streams (issue 42); elsewhere it reads', async () => {
    const { app, refusals } = guarded((path) => path === '/forwarded');
    const crossSite = { method: 'OPTIONS', body: 'x', headers: { 'sec-fetch-site': 'cross-site' } };
    await expectErrorBody(await app.request('/forwarded', crossSite), 403, 'cross_site_request');
    expect((await app.request('/state', crossSite)).status).toBe(200);
    const res = await app.request('/forwarded', { method: 'OPTIONS', body: big });
    expect(await res.json()).toEqual({ bytes: big.length });
    expect(refusals).toEqual([['127.0.0.5', 'cross_site_request']]);
  });
});
