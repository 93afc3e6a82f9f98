import type { Principal } from '@webui/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../../app-env.js';
import { expectErrorBody } from '../../testing/test-app.js';
import { methodPermission, methodScopeRefusal, requires } from './scope-guard.js';

const READ_KEY: Principal = { kind: 'key', session: 'key-session', name: 'reader', scope: 'read', firstUse: false };
const ADMIN_KEY: Principal = { kind: 'key', session: 'key-session', name: 'admin', scope: 'admin', firstUse: false };
const TOKEN: Principal = { kind: 'token', session: 'token-session', status: { tokenSource: 'configured', requiresCustomToken: false } };

function appAs(principal: Principal | undefined) {
  return new Hono<WebuiEnv>()
    .use((c, next) => {
      if (principal === undefined) return next();
      c.set('principal', principal);
      const refusal = methodScopeRefusal(c, principal);
      return refusal ? Promise.resolve(refusal) : next();
    })
    .all('/state', (c) => c.json({ ok: true }))
    .post('/keys', requires('manage_keys'), (c) => c.json({ ok: true }));
}

describe('methodScopeRefusal and requires', () => {
  it('needs read for GET, HEAD and OPTIONS, admin for anything else', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE', 'PUT', 'PATCH'].map((method) => methodPermission(method))).toEqual([
      'read',
      'read',
      'read',
      'admin',
      'admin',
      'admin',
      'admin',
    ]);
  });

  it('needs admin for an OPTIONS on a forwarded path, read elsewhere; GET and HEAD stay reads there (issue 42)', () => {
    const isForwarded = (path: string) => path.startsWith('/bot/');
    expect(methodPermission('OPTIONS', '/bot/x', isForwarded)).toBe('admin');
    expect(methodPermission('OPTIONS', '/api/webui/x', isForwarded)).toBe('read');
    expect(['GET', 'HEAD', 'POST'].map((method) => methodPermission(method, '/bot/x', isForwarded))).toEqual(['read', 'read', 'admin']);
  });

  it('refuses a read-scoped key a state change with 403 insufficient_scope naming what it needs', async () => {
    const app = appAs(READ_KEY);
    expect((await app.request('/state')).status).toBe(200);
    const body = await expectErrorBody(await app.request('/state', { method: 'POST' }), 403, 'insufficient_scope');
    expect(body.required).toBe('admin');
  });

  it('lets an admin key and the token change state', async () => {
    expect((await appAs(ADMIN_KEY).request('/state', { method: 'DELETE' })).status).toBe(200);
    expect((await appAs(TOKEN).request('/state', { method: 'POST' })).status).toBe(200);
  });

  it('lets a route ask for more than its method: managing keys is for the token only', async () => {
    const body = await expectErrorBody(await appAs(ADMIN_KEY).request('/keys', { method: 'POST' }), 403, 'insufficient_scope');
    expect(body.required).toBe('access_token');
    expect((await appAs(TOKEN).request('/keys', { method: 'POST' })).status).toBe(200);
  });
});
