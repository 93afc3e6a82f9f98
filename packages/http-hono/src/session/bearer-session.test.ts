import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json, LISTEN_ORIGIN, sessionSetCookies } from '../testing/test-app.js';

const FOREIGN = { origin: 'https://evil.example' };

describe('Authorization: Bearer with the access token or a key', () => {
  it('the access token works as a bearer wherever a session does, with no Origin check and no Set-Cookie', async () => {
    const t = await createTestApp();
    expect(await json(await t.request('/setup/status', { bearer: t.token }))).toMatchObject({ is_first_setup: true });
    expect(await json(await t.request('/auth/check', { bearer: t.token }))).toMatchObject({
      authenticated: true,
      token_source: 'temporary',
    });
    expect(await json(await t.request('/ws-token', { bearer: t.token }))).toMatchObject({ success: true });
    const complete = await t.request('/setup/complete', { method: 'POST', bearer: t.token, headers: FOREIGN });
    expect(complete.status).toBe(200);
    const regenerated = await t.request('/auth/regenerate', { method: 'POST', bearer: t.token });
    expect(regenerated.status).toBe(200);
    expect(sessionSetCookies(regenerated)).toEqual([]);
    expect(sessionSetCookies(await t.request('/auth/logout', { method: 'POST', bearer: 'x' }))).toEqual([]);
  });

  it('a read key may GET and get a WebSocket ticket, and nothing else (403 with the error body (docs/decisions/0001-error-bodies.md))', async () => {
    const t = await createTestApp();
    const key = await t.createKey('monitor', 'read');
    expect((await t.request('/setup/status', { bearer: key })).status).toBe(200);
    expect((await t.request('/security/bans', { bearer: key })).status).toBe(200);
    expect((await t.request('/keys', { bearer: key })).status).toBe(200);
    expect(await json(await t.request('/ws-token', { bearer: key }))).toMatchObject({ success: true });
    expect(await json(await t.request('/auth/check', { bearer: key }))).toMatchObject({
      authenticated: true,
      key: { name: 'monitor', scope: 'read' },
    });
    const body = await expectErrorBody(await t.request('/setup/complete', { method: 'POST', bearer: key }), 403, 'insufficient_scope');
    expect(body.required).toBe('admin');
    await expectErrorBody(await t.request('/security/bans/all', { method: 'DELETE', bearer: key }), 403, 'insufficient_scope');
    expect(await t.harness.setup.isFirstSetup()).toBe(true);
  });

  it('an admin key may change state but not manage keys or change the token', async () => {
    const t = await createTestApp();
    const key = await t.createKey('deploy', 'admin');
    expect((await t.request('/setup/complete', { method: 'POST', bearer: key, headers: FOREIGN })).status).toBe(200);
    expect((await t.request('/security/bans/203.0.113.9', { method: 'DELETE', bearer: key })).status).toBe(200);
    // Never its own address (issue 31): `all` covers it.
    await expectErrorBody(await t.request('/security/bans/all', { method: 'DELETE', bearer: key }), 403, 'own_ban');
    await expectErrorBody(
      await t.request('/keys', { method: 'POST', bearer: key, json: { name: 'sneaky', scope: 'admin' } }),
      403,
      'insufficient_scope',
    );
    await expectErrorBody(await t.request('/keys/deploy', { method: 'DELETE', bearer: key }), 403, 'insufficient_scope');
    await expectErrorBody(await t.request('/auth/regenerate', { method: 'POST', bearer: key }), 403, 'insufficient_scope');
    await expectErrorBody(
      await t.request('/auth/update', { method: 'POST', bearer: key, json: { new_token: 'A-Strong-Token-42!' } }),
      403,
      'insufficient_scope',
    );
    expect(await t.harness.tokens.verify(t.token)).toBe(true);
    expect((await t.harness.keys.list()).map((entry) => entry.name)).toEqual(['deploy']);
  });

  it('a wrong bearer counts like a wrong cookie: five distinct values ban the address', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 4; i++)
      await expectErrorBody(await t.request('/setup/status', { bearer: `wk_wrong-${i}` }), 401, 'invalid_credentials');
    await expectErrorBody(await t.request('/setup/status', { bearer: 'wk_wrong-4' }), 429, 'too_many_attempts');
    expect((await t.verify(t.token)).status).toBe(429);
    expect(t.audit.named('login_failed').filter((event) => event.how === 'bearer' && event.counted)).toHaveLength(5);
    expect(t.audit.named('ban_started')).toEqual([
      { event: 'ban_started', address: '127.0.0.5', via: 'api', how: 'bearer', retry_after: 600 },
    ]);
  });

  it('the same wrong bearer polled by a script counts once per window', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 20; i++)
      await expectErrorBody(await t.request('/setup/status', { bearer: 'wk_revoked-long-ago' }), 401, 'invalid_credentials');
    expect((await t.verify(t.token)).status).toBe(200);
  });

  it('a cookie and a bearer that differ get 400 with the error body (docs/decisions/0001-error-bodies.md), each request one guess, nothing compared; equal ones pass', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const key = await t.createKey('k', 'admin');
    for (const path of ['/setup/status', '/auth/check', '/ws-token'])
      await expectErrorBody(await t.request(path, { cookie, bearer: key }), 400, 'conflicting_credentials');
    expect(await t.harness.bans.list()).toMatchObject([{ key: '127.0.0.5', failures: 3 }]);
    expect(t.audit.named('key_first_used')).toEqual([]);
    expect((await t.request('/setup/status', { cookie, bearer: t.token })).status).toBe(200);
  });

  it('a revoked key is refused on its next request; an expired one is refused and named in the audit', async () => {
    const t = await createTestApp();
    const key = await t.createKey('ci', 'read');
    const short = await t.createKey('short', 'read', 60_000);
    expect((await t.request('/setup/status', { bearer: key })).status).toBe(200);
    expect((await t.request('/keys/ci', { method: 'DELETE', cookie: await t.login() })).status).toBe(200);
    await expectErrorBody(await t.request('/setup/status', { bearer: key }), 401, 'invalid_credentials');
    t.harness.clock.advance(60_000);
    await expectErrorBody(await t.request('/setup/status', { bearer: short }), 401, 'invalid_credentials');
    expect(t.audit.named('login_failed').at(-1)).toMatchObject({ how: 'bearer', key: 'short', reason: 'expired_key', counted: true });
  });

  it("audits a key's first use once, with the address", async () => {
    const t = await createTestApp();
    const key = await t.createKey('ci', 'read');
    for (let i = 0; i < 3; i++) await t.request('/setup/status', { bearer: key });
    expect(t.audit.named('key_first_used')).toEqual([{ event: 'key_first_used', address: '127.0.0.5', via: 'api', key: 'ci' }]);
  });

  it('an allowed origin may send Authorization (CORS preflight); a foreign origin may not', async () => {
    const t = await createTestApp({ policy: { allowedOrigins: ['http://localhost:5173'] } });
    const preflight = (origin: string) =>
      t.request('/setup/complete', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
    expect((await preflight('http://localhost:5173')).headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'authorization',
    );
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(LISTEN_ORIGIN)).headers.get('access-control-allow-origin')).toBe(LISTEN_ORIGIN);
  });
});

describe('/keys over HTTP', () => {
  it('creates a key shown once, lists it without the key, and revokes it (the access token session only)', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const created = await t.request('/keys', {
      method: 'POST',
      cookie,
      headers: { origin: LISTEN_ORIGIN },
      json: { name: 'deploy', scope: 'admin', expires: '90d' },
    });
    expect(created.status).toBe(200);
    const body = await json(created);
    expect(body).toMatchObject({ success: true, name: 'deploy', scope: 'admin', last_used_at: null, expired: false });
    expect(body.key).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(body.expires_at as string) - Date.parse(body.created_at as string)).toBe(90 * 86_400_000);
    const listed = await t.request('/keys', { cookie });
    const listText = await listed.text();
    expect(listText).not.toContain((body.key as string).slice(3));
    expect(JSON.parse(listText)).toEqual({
      keys: [
        { name: 'deploy', scope: 'admin', created_at: body.created_at, expires_at: body.expires_at, last_used_at: null, expired: false },
      ],
    });
    expect((await t.request('/setup/status', { bearer: body.key as string })).status).toBe(200);
    expect(await json(await t.request('/keys/deploy', { method: 'DELETE', cookie }))).toMatchObject({
      success: true,
      revoked: { name: 'deploy' },
    });
    await expectErrorBody(await t.request('/keys/deploy', { method: 'DELETE', cookie }), 404, 'unknown_key');
    expect(t.audit.named('key_created')).toEqual([
      { event: 'key_created', address: '127.0.0.5', via: 'api', key: 'deploy', scope: 'admin', expires_at: body.expires_at },
    ]);
    expect(t.audit.named('key_revoked')).toEqual([{ event: 'key_revoked', address: '127.0.0.5', via: 'api', key: 'deploy' }]);
    expect(JSON.stringify(t.audit.events)).not.toContain((body.key as string).slice(3));
  });

  it('defaults to read scope and no expiry; refuses bad names, taken names and bad lifetimes with the error body (docs/decisions/0001-error-bodies.md)', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    expect(await json(await t.request('/keys', { method: 'POST', cookie, json: { name: 'plain' } }))).toMatchObject({
      scope: 'read',
      expires_at: null,
    });
    await expectErrorBody(await t.request('/keys', { method: 'POST', cookie, json: { name: 'plain' } }), 409, 'key_name_taken');
    await expectErrorBody(await t.request('/keys', { method: 'POST', cookie, json: { name: 'has space' } }), 400, 'invalid_key_name');
    await expectErrorBody(
      await t.request('/keys', { method: 'POST', cookie, json: { name: 'x', expires: 'soon' } }),
      400,
      'invalid_expiry',
    );
    await expectErrorBody(await t.request('/keys', { method: 'POST', cookie, json: { name: 'x', scope: 'root' } }), 422, 'invalid_body');
    expect((await t.harness.keys.list()).map((entry) => entry.name)).toEqual(['plain']);
  });

  it('refuses a key change from a foreign origin with a cookie session, and audits the refusal once a minute with a count', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    for (let i = 0; i < 3; i++)
      await expectErrorBody(
        await t.request('/keys', { method: 'POST', cookie, headers: FOREIGN, json: { name: `x${i}` } }),
        403,
        'origin_not_allowed',
      );
    expect(t.audit.named('request_refused')).toEqual([
      { event: 'request_refused', address: '127.0.0.5', via: 'api', reason: 'origin_not_allowed', count: 1 },
    ]);
    t.harness.clock.advance(60_000);
    await t.request('/keys', { method: 'POST', cookie, headers: FOREIGN, json: { name: 'late' } });
    expect(t.audit.named('request_refused').at(-1)).toMatchObject({ count: 3 });
    await t.request('/setup/status', { host: 'evil.example' });
    expect(t.audit.named('request_refused')).toHaveLength(2);
    await t.request('/setup/status', { host: 'evil.example', peer: '127.0.0.9' });
    expect(t.audit.named('request_refused').at(-1)).toMatchObject({ address: '127.0.0.9', reason: 'host_not_allowed', count: 1 });
    expect(await t.harness.keys.list()).toEqual([]);
  });
});

describe('audited logins and changes', () => {
  it('records login success and failure with the address, token changes and setup changes; never a secret', async () => {
    const t = await createTestApp();
    await t.verify('wrong-guess-1');
    const cookie = await t.login();
    await t.request('/setup/complete', { method: 'POST', cookie });
    await t.request('/setup/reset', { method: 'POST', cookie });
    await t.request('/auth/update', { method: 'POST', cookie, json: { new_token: 'A-Strong-Token-42!' } });
    expect(t.audit.events.map((event) => event.event)).toEqual([
      'login_failed',
      'login_succeeded',
      'setup_completed',
      'setup_reset',
      'token_changed',
    ]);
    expect(t.audit.events[0]).toEqual({
      event: 'login_failed',
      address: '127.0.0.5',
      via: 'api',
      how: 'verify',
      counted: true,
      remaining: 4,
    });
    const text = JSON.stringify(t.audit.events);
    for (const secret of [t.token, 'A-Strong-Token-42!', 'wrong-guess-1']) expect(text).not.toContain(secret);
  });
});
