import { createCoreHarness, overwriteRecord } from '@webui/core/testing';
import type { Context } from 'hono';
import type { WSContext, WSEvents } from 'hono/ws';
import { describe, expect, it } from 'vitest';
import type { HttpPolicy, WebuiEnv } from '../../app-env.js';
import { API_PREFIX, createWebuiApp } from '../../app.js';
import { cidrs, expectErrorBody, json, LISTEN_ORIGIN, RecordingLogger, sessionCookieValue } from '../../testing/test-app.js';
import { tokenPrincipal } from '../../testing/ws-doubles.js';
import { ChannelDomain } from './domains/channel-domain.js';
import type { ChannelDomainPort } from './domains/channel-domain-port.js';
import { PluginProgressBoard } from './domains/plugin-progress-board.js';
import { PluginProgressDomain } from './domains/plugin-progress-domain.js';
import { WsHub } from './hub/ws-hub.js';
import type { WsUpgrade } from './ws-routes.js';

/**
 * The /ws route over the core harness (fake clock) with a stub upgrade: the stub answers 200 with
 * `x-upgraded: 1` where the runtime would answer 101, and keeps the events the route made.
 */
async function createWsApp(options: { maxPerSession?: number; allowedOrigins?: string[]; domains?: ChannelDomainPort[] } = {}) {
  const harness = createCoreHarness();
  const boot = await harness.tokens.bootstrap();
  const token = boot.temporaryToken as string;
  const logger = new RecordingLogger();
  const hub = new WsHub({
    logs: { recent: () => [], subscribe: () => () => undefined },
    domains: [new PluginProgressDomain(new PluginProgressBoard()), ...(options.domains ?? [])],
    logger,
    now: () => harness.clock.now(),
    newConnectionId: () => 'c',
    ...(options.maxPerSession === undefined ? {} : { maxPerSession: options.maxPerSession }),
  });
  const upgraded: Array<{ events: WSEvents; sessionToken: string }> = [];
  const upgrade: WsUpgrade = (createEvents) => async (c: Context) => {
    upgraded.push({ events: createEvents(c), sessionToken: (c as Context<WebuiEnv>).get('sessionToken') });
    return c.body(null, 200, { 'x-upgraded': '1' });
  };
  const policy: HttpPolicy = {
    serviceName: 'webui-test',
    mode: 'development',
    secureCookie: false,
    sessionExpireDays: 7,
    allowedOrigins: options.allowedOrigins ?? [],
    allowedHosts: [],
    listenOrigins: () => [LISTEN_ORIGIN],
    loopbackOnly: true,
    trustedProxies: cidrs([]),
    allowedIps: cidrs([]),
  };
  const app = createWebuiApp({
    services: harness,
    policy,
    runtime: { getConnInfo: () => ({ remote: { address: '127.0.0.5' } }) },
    logger,
    now: () => harness.clock.now(),
    webSocket: { upgrade, hub },
  });

  const request = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
    const headers = new Headers({ host: '127.0.0.1:8001', ...init.headers });
    return Promise.resolve(
      app.request(
        `http://127.0.0.1:8001${API_PREFIX}${path}`,
        { method: init.method ?? 'GET', headers, ...(init.body ? { body: init.body } : {}) },
        {},
      ),
    );
  };
  /** A WebSocket handshake request for `ticket` (none when undefined). */
  const handshake = (ticket: string | undefined, headers: Record<string, string> = {}) =>
    request(ticket === undefined ? '/ws' : `/ws?token=${encodeURIComponent(ticket)}`, { headers: { ...VALID_HANDSHAKE, ...headers } });

  const login = async (): Promise<string> => {
    const res = await request('/auth/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const cookie = sessionCookieValue(res);
    if (!cookie) throw new Error('no cookie');
    return cookie;
  };
  /** A ticket through GET /ws-token, as the dashboard gets one. */
  const ticket = async (cookie?: string): Promise<string> => {
    const res = await request('/ws-token', { headers: { cookie: `bot_session=${cookie ?? (await login())}` } });
    const body = await json(res);
    if (body.success !== true) throw new Error(`no ticket: ${JSON.stringify(body)}`);
    return body.token as string;
  };
  return { app, harness, hub, logger, token, upgraded, request, handshake, login, ticket };
}

/** The headers a browser's WebSocket handshake carries (RFC 6455 §4.1). */
const VALID_HANDSHAKE = {
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-version': '13',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
};

const isUpgraded = (res: Response) => res.headers.get('x-upgraded') === '1';

describe('GET /ws: accepted handshake', () => {
  it('a live ticket upgrades, bound to the session token, and is spent', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    const res = await t.handshake(ticket);
    expect(res.status).toBe(200);
    expect(isUpgraded(res)).toBe(true);
    expect(t.upgraded.map((u) => u.sessionToken)).toEqual([t.token]);
    // Replay: the same ticket is refused.
    const again = await t.handshake(ticket);
    await expectErrorBody(again, 401, 'unknown_ticket');
    expect(t.upgraded).toHaveLength(1);
  });

  it("the socket acts as the ticket's principal: a read key's cannot subscribe to an admin domain, the token's can", async () => {
    const t = await createWsApp({ domains: [new ChannelDomain('config', { scope: 'admin', snapshot: () => ({ ready: true }) })] });
    const created = await t.harness.keys.create({ name: 'board', scope: 'read', lifetimeMs: null });
    if (!created.ok) throw new Error('no key');
    const keyTicket = async (): Promise<string> => {
      const body = await json(await t.request('/ws-token', { headers: { authorization: `Bearer ${created.value.key}` } }));
      return body.token as string;
    };
    const subscribeOver = (events: WSEvents | undefined) => {
      const sent: unknown[] = [];
      const socket = { readyState: 1, send: (data: string) => sent.push(JSON.parse(data)), close: () => undefined } as unknown as WSContext;
      events?.onOpen?.(new Event('open'), socket);
      events?.onMessage?.(new MessageEvent('message', { data: '{"op":"subscribe","id":1,"domain":"config","topic":"main"}' }), socket);
      return sent.slice(1);
    };
    expect(isUpgraded(await t.handshake(await keyTicket()))).toBe(true);
    expect(subscribeOver(t.upgraded[0]?.events)).toEqual([
      { op: 'response', id: 1, ok: false, error: { code: 'insufficient_scope', message: expect.any(String) } },
    ]);
    expect(isUpgraded(await t.handshake(await t.ticket()))).toBe(true);
    expect(subscribeOver(t.upgraded[1]?.events)).toEqual([
      { op: 'response', id: 1, ok: true, data: { domain: 'config', topic: 'main' } },
      { op: 'event', domain: 'config', topic: 'main', event: 'snapshot', data: { ready: true } },
    ]);
  });

  it('59 s after issue the ticket still works', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    t.harness.clock.advanceSeconds(59);
    expect(isUpgraded(await t.handshake(ticket))).toBe(true);
  });

  it('the events the route hands to the runtime are the hub`s: open registers under the session', async () => {
    const t = await createWsApp();
    await t.handshake(await t.ticket());
    const sent: string[] = [];
    const socket = { readyState: 1, send: (data: string) => sent.push(data), close: () => undefined } as unknown as WSContext;
    t.upgraded[0]?.events.onOpen?.(new Event('open'), socket);
    expect(t.hub.size).toBe(1);
    expect(JSON.parse(sent[0] as string)).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
  });

  it('the request log never carries the ticket', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    await t.handshake(ticket);
    await t.handshake(ticket);
    expect(t.logger.text()).not.toContain(ticket);
    expect(
      t.logger.calls.filter((call) => call.message === 'request' && (call.fields as { path?: string }).path === `${API_PREFIX}/ws`),
    ).toHaveLength(2);
  });
});

describe('GET /ws: refused handshakes get 401 and no upgrade', () => {
  it('missing ticket', async () => {
    const t = await createWsApp();
    await expectErrorBody(await t.handshake(undefined), 401, 'missing_ticket');
    await expectErrorBody(await t.handshake(''), 401, 'missing_ticket');
    expect(t.upgraded).toEqual([]);
  });

  it('unknown ticket', async () => {
    const t = await createWsApp();
    await expectErrorBody(await t.handshake('A'.repeat(43)), 401, 'unknown_ticket');
    expect(t.upgraded).toEqual([]);
  });

  it('expired ticket: 61 s on the fake clock', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    t.harness.clock.advanceSeconds(61);
    await expectErrorBody(await t.handshake(ticket), 401, 'expired_ticket');
    // Gone after the refusal too.
    await expectErrorBody(await t.handshake(ticket), 401, 'unknown_ticket');
    expect(t.upgraded).toEqual([]);
  });

  it('at exactly 60 s the ticket has expired', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    t.harness.clock.advanceSeconds(60);
    await expectErrorBody(await t.handshake(ticket), 401, 'expired_ticket');
  });

  it('a ticket whose session token was rotated (regenerate)', async () => {
    const t = await createWsApp();
    const cookie = await t.login();
    const ticket = await t.ticket(cookie);
    const rotated = await t.request('/auth/regenerate', { method: 'POST', headers: { cookie: `bot_session=${cookie}` } });
    expect(rotated.status).toBe(200);
    const res = await t.handshake(ticket);
    expect(res.status).toBe(401);
    expect(['unknown_ticket', 'session_revoked']).toContain((await json(res)).code);
    expect(t.upgraded).toEqual([]);
  });

  it('a ticket whose session token was replaced outside the API (hand edit): revoked with it, 401', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    const record = await t.harness.store.record.readRecord();
    await overwriteRecord(t.harness.store.record, { ...record!, accessToken: 'Edited-By-Hand-1!' });
    await expectErrorBody(await t.handshake(ticket), 401, 'unknown_ticket');
    expect(t.upgraded).toEqual([]);
  });
});

describe('GET /ws: more than one token parameter', () => {
  it('is refused 400 before any ticket is redeemed, counted as one guess; the ticket then works alone', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    const twice = (first: string, second: string) =>
      t.request(`/ws?token=${encodeURIComponent(first)}&token=${encodeURIComponent(second)}`, { headers: VALID_HANDSHAKE });
    await expectErrorBody(await twice('wrong', ticket), 400, 'duplicate_credentials');
    await expectErrorBody(await twice(ticket, ticket), 400, 'duplicate_credentials');
    expect(t.upgraded).toEqual([]);
    expect(await t.harness.bans.list()).toMatchObject([{ key: '127.0.0.5', failures: 2 }]);
    expect(isUpgraded(await t.handshake(ticket))).toBe(true);
  });

  it('five such handshakes ban the address: the fifth and later ones answer 429', async () => {
    const t = await createWsApp();
    for (let i = 0; i < 4; i++)
      await expectErrorBody(await t.request(`/ws?token=a${i}&token=b${i}`, { headers: VALID_HANDSHAKE }), 400, 'duplicate_credentials');
    await expectErrorBody(await t.request('/ws?token=a&token=b', { headers: VALID_HANDSHAKE }), 429, 'too_many_attempts');
    await expectErrorBody(await t.request('/ws?token=c&token=d', { headers: VALID_HANDSHAKE }), 429, 'too_many_attempts');
    expect(t.logger.calls.some((call) => call.message === 'client banned after repeated failed verifications')).toBe(true);
  });
});

describe('GET /ws: Origin', () => {
  it('a foreign Origin gets 403 before the ticket is looked at: the ticket then works', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    await expectErrorBody(await t.handshake(ticket, { origin: 'http://evil.example' }), 403, 'origin_not_allowed');
    await expectErrorBody(await t.handshake(ticket, { origin: 'null' }), 403, 'origin_not_allowed');
    expect(t.upgraded).toEqual([]);
    expect(isUpgraded(await t.handshake(ticket, { origin: LISTEN_ORIGIN }))).toBe(true);
  });

  it('a foreign Origin with a bad ticket is still 403, not 401', async () => {
    const t = await createWsApp();
    await expectErrorBody(await t.handshake('nope', { origin: 'http://evil.example' }), 403, 'origin_not_allowed');
    await expectErrorBody(await t.handshake(undefined, { origin: 'http://evil.example' }), 403, 'origin_not_allowed');
  });

  it('the request`s own origin, a listen origin and webui.allowed_origins are allowed; no Origin is allowed', async () => {
    const t = await createWsApp({ allowedOrigins: ['http://localhost:5173'] });
    for (const origin of ['http://127.0.0.1:8001', LISTEN_ORIGIN, 'http://localhost:5173', 'HTTP://LOCALHOST:5173', undefined]) {
      const res = await t.handshake(await t.ticket(), origin === undefined ? {} : { origin });
      expect(isUpgraded(res), String(origin)).toBe(true);
    }
  });
});

describe('GET /ws: other refusals', () => {
  it('a plain GET without Upgrade gets 426 and does not spend the ticket', async () => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    await expectErrorBody(await t.request(`/ws?token=${ticket}`), 426, 'upgrade_required');
    expect(isUpgraded(await t.handshake(ticket))).toBe(true);
  });

  it.each([
    ['Upgrade: h2c', { upgrade: 'h2c' }, 426, 'upgrade_required'],
    ['Upgrade: websocket, h2c', { upgrade: 'websocket, h2c' }, 426, 'upgrade_required'],
    ['no Connection: Upgrade', { connection: 'keep-alive' }, 426, 'upgrade_required'],
    ['Sec-WebSocket-Version: 8', { 'sec-websocket-version': '8' }, 426, 'unsupported_websocket_version'],
    ['no Sec-WebSocket-Version', { 'sec-websocket-version': '' }, 426, 'unsupported_websocket_version'],
    ['a key of 15 bytes', { 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25j' }, 400, 'bad_websocket_key'],
    ['no key', { 'sec-websocket-key': '' }, 400, 'bad_websocket_key'],
    ['a subprotocol that is not a token', { 'sec-websocket-protocol': 'chat v1' }, 400, 'bad_websocket_protocol'],
    ['a repeated subprotocol', { 'sec-websocket-protocol': 'chat, chat' }, 400, 'bad_websocket_protocol'],
  ] as const)('a handshake with %s is refused (%i %s) before the ticket is spent', async (_label, headers, status, code) => {
    const t = await createWsApp();
    const ticket = await t.ticket();
    const res = await t.handshake(ticket, headers);
    await expectErrorBody(res, status, code);
    if (code === 'unsupported_websocket_version') expect(res.headers.get('sec-websocket-version')).toBe('13');
    if (code === 'upgrade_required') expect(res.headers.get('upgrade')).toBe('websocket');
    expect(isUpgraded(await t.handshake(ticket))).toBe(true);
  });

  it('a valid list of subprotocols is accepted', async () => {
    const t = await createWsApp();
    expect(isUpgraded(await t.handshake(await t.ticket(), { 'sec-websocket-protocol': 'chat, superchat' }))).toBe(true);
  });

  it('at the per-session cap: 429 with Retry-After, no upgrade', async () => {
    const t = await createWsApp({ maxPerSession: 1 });
    const socket = { readyState: 1, send: () => undefined, close: () => undefined } as unknown as WSContext;
    t.hub.events(tokenPrincipal(t.token)).onOpen?.(new Event('open'), socket);
    const res = await t.handshake(await t.ticket());
    await expectErrorBody(res, 429, 'too_many_connections');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(t.upgraded).toEqual([]);
  });

  it('without a webSocket option the app has no /ws (404)', async () => {
    const harness = createCoreHarness();
    await harness.tokens.bootstrap();
    const app = createWebuiApp({
      services: harness,
      policy: {
        serviceName: 'x',
        mode: 'development',
        secureCookie: false,
        sessionExpireDays: 7,
        allowedOrigins: [],
        allowedHosts: [],
        listenOrigins: () => [LISTEN_ORIGIN],
        loopbackOnly: true,
        trustedProxies: [],
        allowedIps: [],
      },
      runtime: { getConnInfo: () => ({ remote: { address: '127.0.0.5' } }) },
      logger: new RecordingLogger(),
    });
    const res = await app.request(`http://127.0.0.1:8001${API_PREFIX}/ws?token=x`, {
      headers: { host: '127.0.0.1:8001', upgrade: 'websocket' },
    });
    expect(res.status).toBe(404);
  });
});
