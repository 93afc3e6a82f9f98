import type { LogEntry } from '@webui/http-hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createWebuiClient, type BanEntry, type KeyEntry } from './create-webui-client.js';
import type { FetchLike } from './session/session-fetch.js';
import {
  failLoginsFrom,
  loginFromAnotherAddress,
  rotateTokenBehindTheBack,
  startWebuiServer,
  type WebuiServer,
} from './testing/webui-server.js';
import { startFaultProxy } from './testing/fault-proxy.js';
import { WebuiError } from './webui-error.js';

const STRONG_TOKEN = 'Client-Test_Token!2024';

/** The credential headers of one request actually sent, and the Set-Cookie of its answer. */
interface SentHeaders {
  cookie: string | null;
  authorization: string | null;
  setCookie: string | null;
}

/** fetch that records "METHOD /path -> status" of every request actually sent, and its credential headers. */
function recordingFetch(): { fetch: FetchLike; calls: string[]; headers: SentHeaders[] } {
  const calls: string[] = [];
  const headers: SentHeaders[] = [];
  return {
    calls,
    headers,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      calls.push(`${request.method} ${new URL(request.url).pathname.replace('/api/webui', '')} -> ${response.status}`);
      headers.push({
        cookie: request.headers.get('cookie'),
        authorization: request.headers.get('authorization'),
        setCookie: response.headers.get('set-cookie'),
      });
      return response;
    },
  };
}

describe('createWebuiClient against the real server', () => {
  let server: WebuiServer;

  beforeAll(async () => {
    server = await startWebuiServer();
  });
  afterAll(() => server?.stop());

  it('answers health, refuses login-required calls before login, then logs in, checks and reads the setup status', async () => {
    const client = createWebuiClient({ baseUrl: server.baseUrl });
    expect(await client.health()).toEqual({ status: 'healthy', service: expect.any(String) });
    expect(await client.check()).toEqual({ authenticated: false });
    const refused = await client.setupStatus().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebuiError);
    expect(refused).toMatchObject({ status: 401, code: 'not_authenticated', detail: expect.stringContaining('auth/verify') });
    expect(await client.wsTicket()).toMatchObject({ success: false });

    const login = await client.login(server.token());
    expect(login).toMatchObject({ valid: true, is_first_setup: true, token_source: 'temporary', requires_custom_token: true });
    expect(client.token).toBe(server.token());
    expect(await client.check()).toEqual({ authenticated: true, token_source: 'temporary', requires_custom_token: true });
    expect(await client.setupStatus()).toMatchObject({ is_first_setup: true, token_source: 'temporary' });
    expect(await client.wsTicket()).toMatchObject({ success: true, expires_in: 60, token: expect.any(String) });
  });

  it('resolves a wrong token with valid:false instead of throwing, and keeps the token it knew', async () => {
    const client = createWebuiClient({ baseUrl: `${server.baseUrl}/api/webui/` });
    const wrong = await client.login('not-the-token');
    expect(wrong).toMatchObject({ valid: false, message: expect.any(String) });
    expect(client.token).toBeUndefined();
    // A success clears the failure count, so the other tests of this server stay unbanned.
    expect((await client.login(server.token())).valid).toBe(true);
  });

  it('keeps working after updateToken: it logs in again with the new token by itself', async () => {
    const client = createWebuiClient({ baseUrl: server.baseUrl });
    await client.login(server.token());
    const wrong = await client.createKey({ name: 'x', scope: 'root' as never, expires: 90 as never }).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ status: 422, code: 'invalid_body', problems: [{ path: 'scope' }, { path: 'expires' }] });
    expect((wrong as WebuiError).problems?.[1]?.message).toMatch(/expires/);
    const weak = await client.updateToken('short').catch((error: unknown) => error);
    expect(weak).toMatchObject({ status: 400, code: 'weak_token', body: { violations: expect.arrayContaining(['too_short']) } });

    expect(await client.updateToken(STRONG_TOKEN)).toEqual({ token: STRONG_TOKEN, loggedIn: true });
    expect(server.token()).toBe(STRONG_TOKEN);
    expect(client.token).toBe(STRONG_TOKEN);
    expect(await client.check()).toEqual({ authenticated: true, token_source: 'configured', requires_custom_token: false });
    expect(await client.setupStatus()).toMatchObject({ token_source: 'configured' });

    const { token: regenerated, ...login } = await client.regenerateToken();
    expect(login).toEqual({ loggedIn: true });
    expect(regenerated).toMatch(/^[0-9a-f]{64}$/);
    expect(server.token()).toBe(regenerated);
    expect(await client.setupStatus()).toMatchObject({ token_source: 'configured' });
  });

  it('reacts to a 401 after the token was rotated behind its back by verifying again and retrying once', async () => {
    const recorder = recordingFetch();
    const client = createWebuiClient({ baseUrl: server.baseUrl, fetch: recorder.fetch });
    await client.login(server.token());
    const rotated = await rotateTokenBehindTheBack(server);

    // Knowing only the old token, the re-login fails and the 401 surfaces.
    await expect(client.setupStatus()).rejects.toMatchObject({ status: 401, code: 'invalid_session' });
    // The refused token is forgotten, so later calls do not keep counting toward a ban.
    expect(client.token).toBeUndefined();

    // The script reads the token again (from webui.json, say) and carries on.
    client.setToken(rotated);
    recorder.calls.length = 0;
    expect(await client.setupStatus()).toMatchObject({ token_source: 'configured' });
    expect(recorder.calls).toEqual(['GET /setup/status -> 401', 'POST /auth/verify -> 200', 'GET /setup/status -> 200']);
  });

  it('logs in on the first 401 when it was only given the token', async () => {
    const recorder = recordingFetch();
    const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token(), fetch: recorder.fetch });
    const [status, ticket] = await Promise.all([client.setupStatus(), client.completeSetup()]);
    expect(status.token_source).toBe('configured');
    expect(ticket).toMatchObject({ success: true, is_first_setup: false });
    // Two requests hit the same 401; one login served both.
    expect(recorder.calls.filter((call) => call.startsWith('POST /auth/verify'))).toHaveLength(1);
    expect(await client.resetSetup()).toMatchObject({ success: true, is_first_setup: true });
  });

  it('forgets the token on logout, so it does not log in again by itself', async () => {
    const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token() });
    await client.login();
    expect(await client.logout()).toEqual({ success: true, message: '已成功登出' });
    expect(client.token).toBeUndefined();
    expect(await client.check()).toEqual({ authenticated: false });
    await expect(client.setupStatus()).rejects.toMatchObject({ status: 401, code: 'not_authenticated' });
  });

  it('opens the channel with the ws package: ready, ping/pong, logs/main snapshot, and 4001 when the token changes', async () => {
    const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token(), WebSocket });
    // No login first: the ticket request logs in by itself.
    const channel = await client.openChannel();
    expect(channel.connectionId).toMatch(/.+/);
    expect(await channel.ping()).toBeGreaterThan(Date.now() - 60_000);

    const snapshot = new Promise<unknown[]>((resolve) => channel.on('logs', 'snapshot', (data) => resolve(data.entries)));
    const response = await channel.subscribe('logs', 'main', { replay: 50 });
    expect(response).toMatchObject({ op: 'response', ok: true, data: { domain: 'logs', topic: 'main' } });
    const entries = await snapshot;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries[0]).toMatchObject({
      id: expect.any(String),
      timestamp: expect.any(String),
      level: expect.any(String),
      message: expect.any(String),
    });

    const unknown = await channel.subscribe('nope', 'main');
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_topic' } });
    const badReplay = await channel.subscribe('logs', 'main', { replay: 10_000 });
    expect(badReplay).toMatchObject({ ok: false, error: { code: 'invalid_request' } });

    // A live entry arrives once the server logs something (a login from a new address does).
    const entry = new Promise<LogEntry>((resolve) => channel.on('logs', 'entry', (data) => resolve(data.entry)));
    expect(await loginFromAnotherAddress(server, '127.0.0.21')).toBe(200);
    expect(await entry).toEqual({
      id: expect.any(String),
      timestamp: expect.any(String),
      level: expect.stringMatching(/^(DEBUG|INFO|WARNING|ERROR|CRITICAL)$/),
      module: expect.any(String),
      message: expect.any(String),
    });

    await client.regenerateToken();
    expect(await channel.closed).toMatchObject({ code: 4001 });
    await expect(channel.ping()).rejects.toThrow(/closed \(4001/);

    const again = await client.openChannel();
    expect(await again.close()).toMatchObject({ code: 1000 });
  });

  it('rejects openChannel without a session, and without a WebSocket in the runtime', async () => {
    const anonymous = createWebuiClient({ baseUrl: server.baseUrl, WebSocket });
    await expect(anonymous.openChannel()).rejects.toMatchObject({ status: 401, code: 'not_authenticated' });
    const noSocket = createWebuiClient({ baseUrl: server.baseUrl, token: server.token(), WebSocket: undefined });
    if (!('WebSocket' in globalThis)) await expect(noSocket.openChannel()).rejects.toThrow(/ws/);
  });
});

describe('createWebuiClient against a server that bans', () => {
  let server: WebuiServer;

  beforeAll(async () => {
    server = await startWebuiServer();
  });
  afterAll(() => server?.stop());

  it('throws WebuiError 429 too_many_attempts with Retry-After after 5 wrong logins', async () => {
    const client = createWebuiClient({ baseUrl: server.baseUrl, maxRetries: 0 });
    const answers = [];
    for (let attempt = 0; attempt < 4; attempt++) answers.push(await client.login(`wrong-${attempt}`));
    expect(answers.every((answer) => !answer.valid)).toBe(true);
    expect(answers[3]).toMatchObject({ valid: false, remaining_attempts: 1 });

    const banned = await client.login('wrong-4').catch((error: unknown) => error);
    expect(banned).toBeInstanceOf(WebuiError);
    const error = banned as WebuiError;
    expect(error).toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(error.retryAfter).toBeGreaterThan(590);
    expect(error.retryAfter).toBeLessThanOrEqual(600);

    // With retries allowed, a 10-minute wait is still beyond maxRetryAfter: thrown at once, even for the right token.
    const patient = createWebuiClient({ baseUrl: server.baseUrl, maxRetries: 3 });
    const started = Date.now();
    await expect(patient.login(server.token())).rejects.toMatchObject({ status: 429, code: 'too_many_attempts' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('createWebuiClient listing and lifting bans', () => {
  let server: WebuiServer;

  beforeAll(async () => {
    server = await startWebuiServer();
  });
  afterAll(() => server?.stop());

  it('needs a login: listBans and liftBan throw WebuiError 401 without one', async () => {
    const anonymous = createWebuiClient({ baseUrl: server.baseUrl });
    await expect(anonymous.listBans()).rejects.toMatchObject({ status: 401, code: 'not_authenticated' });
    await expect(anonymous.liftBan('all')).rejects.toMatchObject({ status: 401, code: 'not_authenticated' });
  });

  it('lists a banned address and one with counted failures, and lifts them by address and by a percent-encoded CIDR', async () => {
    expect(await failLoginsFrom(server, '127.0.0.31', 5)).toEqual([200, 200, 200, 200, 429]);
    expect(await failLoginsFrom(server, '127.0.0.32', 2)).toEqual([200, 200]);
    // Given only the token, the client logs in by itself on the first 401.
    const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token() });
    const bans = await client.listBans();
    expect(bans).toEqual([
      { key: '127.0.0.31', failures: 0, banned_until: expect.any(String), last_attempt: expect.any(String) },
      { key: '127.0.0.32', failures: 2, banned_until: null, last_attempt: expect.any(String) },
    ]);
    const [banned, counted] = bans as [BanEntry, BanEntry];
    expect(Date.parse(String(banned.banned_until)) - Date.parse(String(banned.last_attempt))).toBe(10 * 60_000);
    expect(await loginFromAnotherAddress(server, '127.0.0.31')).toBe(429);

    expect(await client.liftBan('127.0.0.31')).toEqual([banned]);
    expect(await loginFromAnotherAddress(server, '127.0.0.31')).toBe(200);
    // The `/` travels as %2F: sent as is, the path would have a segment too many and answer 404.
    expect(await client.liftBan('127.0.0.32/32')).toEqual([counted]);
    expect(await client.listBans()).toEqual([]);
  });

  it(
    'lifts every entry with `all`, resolves [] when nothing matched, and throws 400 invalid_ban_target for a target the server ' +
      'cannot read',
    async () => {
      await failLoginsFrom(server, '127.0.0.34', 1);
      await failLoginsFrom(server, '127.0.0.33', 1);
      const client = createWebuiClient({ baseUrl: server.baseUrl });
      expect((await client.login(server.token())).valid).toBe(true);
      expect((await client.liftBan('all')).map((entry) => entry.key)).toEqual(['127.0.0.33', '127.0.0.34']);
      expect(await client.liftBan('all')).toEqual([]);
      expect(await client.liftBan('10.9.9.9')).toEqual([]);

      for (const target of ['not an address', ' ']) {
        const refused = await client.liftBan(target).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(WebuiError);
        expect(refused).toMatchObject({ status: 400, code: 'invalid_ban_target' });
      }
      await expect(client.liftBan('..')).rejects.toThrow(TypeError);
    },
  );
});

describe('createWebuiClient with API keys', () => {
  let server: WebuiServer;
  /** Logged in with the access token: the only session that may manage keys. */
  let operator: ReturnType<typeof createWebuiClient>;
  let readKey: string;

  beforeAll(async () => {
    server = await startWebuiServer();
    operator = createWebuiClient({ baseUrl: server.baseUrl, token: server.token() });
  });
  afterAll(() => server?.stop());

  it('refuses a token and an API key together, and an empty key, at construction', () => {
    expect(() => createWebuiClient({ baseUrl: server.baseUrl, token: 'some-token', apiKey: 'wk_x' })).toThrow(
      /either `token`.*or `apiKey`.*not both/,
    );
    expect(() => createWebuiClient({ baseUrl: server.baseUrl, apiKey: '' })).toThrow(TypeError);
  });

  it('createKey shows the key once: the answer holds it, the list and webui.json never do', async () => {
    const created = await operator.createKey({ name: 'ci-read' });
    readKey = created.key;
    expect(readKey).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    expect(created).toEqual({
      success: true,
      key: readKey,
      message: expect.stringContaining('only'),
      name: 'ci-read',
      scope: 'read',
      created_at: expect.any(String),
      expires_at: null,
      last_used_at: null,
      expired: false,
    });

    const admin = await operator.createKey({ name: 'deploy', scope: 'admin', expires: '90d' });
    expect(admin).toMatchObject({ name: 'deploy', scope: 'admin', expired: false });
    expect(Date.parse(String(admin.expires_at)) - Date.parse(admin.created_at)).toBe(90 * 24 * 3_600_000);

    const listed = await operator.listKeys();
    expect(listed.map((entry) => [entry.name, entry.scope])).toEqual([
      ['ci-read', 'read'],
      ['deploy', 'admin'],
    ]);
    for (const entry of listed)
      expect(Object.keys(entry).sort()).toEqual(['created_at', 'expired', 'expires_at', 'last_used_at', 'name', 'scope']);
    expect(JSON.stringify(listed)).not.toContain(readKey);
    expect(JSON.stringify(server.webuiFile())).not.toContain(readKey);
  });

  it("refuses a taken name, a bad name and a bad lifetime with the server's code and detail", async () => {
    await expect(operator.createKey({ name: 'ci-read' })).rejects.toMatchObject({
      status: 409,
      code: 'key_name_taken',
      detail: expect.stringContaining('exists'),
    });
    await expect(operator.createKey({ name: '-bad name' })).rejects.toMatchObject({ status: 400, code: 'invalid_key_name' });
    await expect(operator.createKey({ name: 'later', expires: 'soon' })).rejects.toMatchObject({ status: 400, code: 'invalid_expiry' });
  });

  it('a read key lists, reads and opens the channel, sending only the bearer: no cookie, no /auth/verify', async () => {
    const recorder = recordingFetch();
    const client = createWebuiClient({ baseUrl: server.baseUrl, apiKey: readKey, fetch: recorder.fetch, WebSocket });
    expect(await client.check()).toEqual({
      authenticated: true,
      token_source: 'temporary',
      requires_custom_token: true,
      key: { name: 'ci-read', scope: 'read' },
    });
    expect((await client.listKeys()).map((entry) => entry.name)).toEqual(['ci-read', 'deploy']);
    expect(await client.setupStatus()).toMatchObject({ token_source: 'temporary' });

    const channel = await client.openChannel();
    expect(await channel.ping()).toBeGreaterThan(Date.now() - 60_000);
    expect(await channel.subscribe('logs', 'main', { replay: 1 })).toMatchObject({ ok: true });
    expect(await channel.close()).toMatchObject({ code: 1000 });

    // A read key changes nothing: the refusal is thrown as is, with no login to try.
    await expect(client.completeSetup()).rejects.toMatchObject({ status: 403, code: 'insufficient_scope', required: 'admin' });
    await expect(client.createKey({ name: 'sneaky', scope: 'admin' })).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
    await expect(client.login('anything')).rejects.toThrow(TypeError);
    expect(() => client.setToken('anything')).toThrow(TypeError);

    expect(recorder.calls).toEqual([
      'GET /auth/check -> 200',
      'GET /keys -> 200',
      'GET /setup/status -> 200',
      'GET /ws-token -> 200',
      'POST /setup/complete -> 403',
      'POST /keys -> 403',
    ]);
    expect(recorder.headers).toEqual(recorder.calls.map(() => ({ cookie: null, authorization: `Bearer ${readKey}`, setCookie: null })));
    expect(server.webuiFile()['first_setup_completed']).toBe(false);
  });

  it('revokeKey percent-encodes the name; the revoked key gets a 401 at once, thrown without a login', async () => {
    const recorder = recordingFetch();
    const admin = createWebuiClient({ baseUrl: server.baseUrl, token: server.token(), fetch: recorder.fetch });
    expect((await admin.login()).valid).toBe(true);
    // Sent as is, the `/` would make a segment too many and hit no route; encoded, the server reads the name back.
    await expect(admin.revokeKey('no such/key?')).rejects.toMatchObject({
      status: 404,
      code: 'unknown_key',
      detail: expect.stringContaining('"no such/key?"'),
    });
    expect(recorder.calls.filter((call) => call.startsWith('DELETE'))).toEqual(['DELETE /keys/no%20such%2Fkey%3F -> 404']);
    await expect(admin.revokeKey('..')).rejects.toThrow(TypeError);

    const keyRecorder = recordingFetch();
    const keyClient = createWebuiClient({ baseUrl: server.baseUrl, apiKey: readKey, fetch: keyRecorder.fetch, WebSocket });
    const channel = await keyClient.openChannel();

    const revoked: KeyEntry = await admin.revokeKey('ci-read');
    expect(revoked).toMatchObject({ name: 'ci-read', scope: 'read', last_used_at: expect.any(String) });
    expect((await admin.listKeys()).map((entry) => entry.name)).toEqual(['deploy']);
    // Its socket ends with it.
    expect(await channel.closed).toMatchObject({ code: 4001 });

    keyRecorder.calls.length = 0;
    const refused = await keyClient.setupStatus().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebuiError);
    expect(refused).toMatchObject({ status: 401 });
    await expect(keyClient.openChannel()).rejects.toMatchObject({ status: 401, code: 'not_authenticated' });
    expect(keyRecorder.calls).toEqual(['GET /setup/status -> 401', 'GET /ws-token -> 200']);
    await expect(admin.revokeKey('ci-read')).rejects.toMatchObject({ status: 404, code: 'unknown_key' });
  });
});

describe('createWebuiClient cancelled by a signal', () => {
  let server: WebuiServer;

  beforeAll(async () => {
    server = await startWebuiServer();
  });
  afterAll(() => server?.stop());

  it("rejects every call with the signal's reason when it is aborted before, sending nothing", async () => {
    const recorder = recordingFetch();
    const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token(), fetch: recorder.fetch, WebSocket });
    const signal = AbortSignal.abort();
    const calls: Record<string, () => Promise<unknown>> = {
      health: () => client.health({ signal }),
      login: () => client.login(undefined, { signal }),
      check: () => client.check({ signal }),
      updateToken: () => client.updateToken(STRONG_TOKEN, { signal }),
      regenerateToken: () => client.regenerateToken({ signal }),
      logout: () => client.logout({ signal }),
      setupStatus: () => client.setupStatus({ signal }),
      completeSetup: () => client.completeSetup({ signal }),
      resetSetup: () => client.resetSetup({ signal }),
      listBans: () => client.listBans({ signal }),
      liftBan: () => client.liftBan('all', { signal }),
      listKeys: () => client.listKeys({ signal }),
      createKey: () => client.createKey({ name: 'never' }, { signal }),
      revokeKey: () => client.revokeKey('never', { signal }),
      wsTicket: () => client.wsTicket({ signal }),
      openChannel: () => client.openChannel({ signal }),
      api: () => client.api.health.$get(undefined, { init: { signal } }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error, name).toBeInstanceOf(DOMException);
      expect((error as DOMException).name, name).toBe('AbortError');
    }
    expect(recorder.calls).toEqual([]);
  });

  it('with the ws package: aborted before system/ready the held socket closes, aborted after the channel closes with 1000', async () => {
    const proxy = await startFaultProxy(server.baseUrl);
    try {
      const client = createWebuiClient({ baseUrl: proxy.baseUrl, token: server.token(), WebSocket });
      const held = proxy.holdNext('GET', '/ws');
      const opening = new AbortController();
      const refused = client.openChannel({ signal: opening.signal }).catch((error: unknown) => error);
      const upgrade = await held;
      opening.abort();
      expect(await refused).toMatchObject({ name: 'AbortError' });
      await upgrade.clientClosed;

      const life = new AbortController();
      const channel = await client.openChannel({ signal: life.signal });
      expect(await channel.ping()).toBeGreaterThan(0);
      life.abort();
      expect(await channel.closed).toEqual({ code: 1000, reason: 'aborted' });
      await proxy.channelsClosed();
    } finally {
      await proxy.close();
    }
  });

  it("rejects with the caller's own reason, and refuses a timeout that is none", async () => {
    const client = createWebuiClient({ baseUrl: server.baseUrl });
    const controller = new AbortController();
    const reason = new Error('the operator gave up');
    controller.abort(reason);
    await expect(client.health({ signal: controller.signal })).rejects.toBe(reason);
    expect(() => createWebuiClient({ baseUrl: server.baseUrl, timeoutMs: -1 })).toThrow(/`timeoutMs` must be 0/);
    expect(() => createWebuiClient({ baseUrl: server.baseUrl, timeoutMs: Number.NaN })).toThrow(TypeError);
  });
});
