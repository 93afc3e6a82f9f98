import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionSecret, startGateway, STAND_IN_TOKEN, type Gateway } from '../harness/proxies/gateway.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, freePort } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type RecordedRequest, type StandInUpstream } from '../harness/stand-in-upstream.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { connect, type Envelope, type WsClient } from '../harness/clients/ws-client.js';

/**
 * The dashboard's one channel through the real server (issue 33, items 3 and 4): a client opens only OUR /api/webui/ws;
 * the bot's domains (`chat`, `maisaka_monitor`) are relayed to the stand-in upstream's channel and back, `logs` is the
 * merge of the bot's lines and ours, an unreachable upstream answers ok:false without closing the client, and a token
 * change closes the client with 4001 and its upstream socket with it.
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

type MergedEntry = { id: string; timestamp: string; level: string; module: string; message: string };

/** A client socket on OUR channel, opened with a ticket from OUR /api/webui/ws-token, past our system/ready. */
async function openChannel(gateway: Gateway): Promise<WsClient> {
  const ticket = await gateway.operator.get('/api/webui/ws-token');
  expect(ticket.json).toMatchObject({ success: true });
  const handshake = await connect(gateway.server, String(ticket.json?.['token']));
  if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
  await handshake.client.waitFor((message) => message['event'] === 'ready', 3_000, 'system/ready');
  return handshake.client;
}

const entryOf = (message: Envelope) => (message['data'] as { entry?: MergedEntry }).entry;
const logEvents = (client: WsClient, event: string) => client.messages.filter((m) => m['domain'] === 'logs' && m['event'] === event);

describe('the channel relayed to the stand-in upstream', () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({ url: upstream.url });
  });

  it("a chat session.open call gets the stand-in's response by id and its chat events; the upstream socket came with a ticket", async () => {
    const client = await openChannel(gateway);
    const call = { op: 'call', domain: 'chat', method: 'session.open', session: 'tab-1', data: { user_name: 'operator' } };
    const answer = await client.request(call);
    expect(answer).toMatchObject({ op: 'response', ok: true, data: { session: 'tab-1', session_id: expect.any(String) } });
    const info = await client.waitFor((m) => m['domain'] === 'chat' && m['event'] === 'session_info', 3_000, 'session_info');
    expect(info).toMatchObject({ session: 'tab-1', data: { user_name: 'operator', bot_name: 'StandInBot' } });
    await client.waitFor((m) => m['domain'] === 'chat' && m['event'] === 'system', 3_000, 'the welcome line');

    // The stand-in got the call unchanged, on a socket opened with a ticket its ws-token gave for the configured cookie.
    expect(upstream.channelMessages.map((m) => m.message)).toContainEqual(expect.objectContaining({ ...call, id: answer['id'] }));
    const [ticketRequest] = upstream.requestsTo('/api/webui/ws-token');
    expect(ticketRequest?.headers['cookie']).toContain(`maibot_session=${STAND_IN_TOKEN}`);
    const handshake = upstream.received.find((recorded) => recorded.upgrade);
    expect(handshake?.status).toBe(101);
    expect(JSON.stringify(handshake?.headers)).not.toContain(gateway.token);
    expect(upstream.openSockets).toBe(1);
    // The upstream's own ready never reaches the client: the one it saw is ours.
    expect(client.messages.filter((m) => m['event'] === 'ready')).toHaveLength(1);
    client.close();
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, "the client's upstream socket closed with it");
  });

  it("a maisaka_monitor/main subscription receives the stand-in's events", async () => {
    const client = await openChannel(gateway);
    expect(await client.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: {} })).toMatchObject({ ok: true });
    upstream.emitMonitor('planner.thinking', { text: 'weighing a reply' });
    const event = await client.waitFor(
      (m) => m['domain'] === 'maisaka_monitor' && m['event'] === 'planner.thinking',
      3_000,
      'monitor event',
    );
    expect(event['data']).toMatchObject({ text: 'weighing a reply' });
    upstream.emitMonitor('stage.status', { stage: 'idle' }, { transient: true });
    await client.waitFor((m) => m['event'] === 'stage.status', 3_000, 'the transient monitor event');
    client.close();
  });

  it("logs/main with replay 100: ONE snapshot of the bot's lines and ours by time, then live lines from both", async () => {
    const client = await openChannel(gateway);
    expect(await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 100 } })).toMatchObject({ ok: true });
    const snapshot = await client.waitFor((m) => m['domain'] === 'logs' && m['event'] === 'snapshot', 5_000, 'the merged snapshot');
    const entries = (snapshot['data'] as { entries: MergedEntry[] }).entries;
    const bots = entries.filter((entry) => entry.id.startsWith('bot-'));
    const ours = entries.filter((entry) => entry.id.startsWith('webui-'));
    expect(bots.map((entry) => entry.message)).toEqual(['MaiBot started', 'no model configured', 'channel ready']);
    expect(bots.map((entry) => entry.module)).toEqual(['main', 'config', 'webui.unified_ws']);
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.map((entry) => entry.message)).toContain('login succeeded');
    for (const entry of ours) expect(entry.module).toMatch(/^gateway(\.|$)/);
    expect(bots.length + ours.length).toBe(entries.length);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
    for (const entry of entries) expect(entry.level).toMatch(/^(DEBUG|INFO|WARNING|ERROR|CRITICAL)$/);
    // The bot's seeded lines are minutes old, ours from the start: theirs first.
    expect(entries.slice(0, 3).map((entry) => entry.id.split('-')[0])).toEqual(['bot', 'bot', 'bot']);

    upstream.emitLog({ level: 'warn', module: 'chat', message: 'the bot speaks live' });
    const botLive = await client.waitFor((m) => entryOf(m)?.message === 'the bot speaks live', 3_000, 'the bot`s live line');
    expect(entryOf(botLive)).toMatchObject({ id: expect.stringMatching(/^bot-/), level: 'WARNING', module: 'chat' });
    // A wrong login is one of our own lines.
    const stranger = new HttpClient(gateway.server.baseUrl, { localAddress: '127.0.0.40' });
    await stranger.post('/auth/verify', { body: { token: 'Wrong-Token_2026!x' } });
    const ourLive = await client.waitFor((m) => entryOf(m)?.id.startsWith('webui-') === true, 3_000, 'our live line');
    expect(entryOf(ourLive)?.module).toMatch(/^gateway\./);
    expect(logEvents(client, 'snapshot')).toHaveLength(1);
    client.close();
  });
});

describe('a read key on the relayed channel (issue 42): the scope rule of mounted domains, and the client named to the bot', () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;
  const keys: Record<'viewer' | 'deployer', string> = { viewer: '', deployer: '' };

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({ url: upstream.url });
    for (const [name, scope] of [
      ['viewer', 'read'],
      ['deployer', 'admin'],
    ] as const) {
      const created = await gateway.operator.post('/api/webui/keys', { body: { name, scope, expires: null } });
      expect(created.status, created.text).toBe(200);
      keys[name] = String(created.json?.['key']);
    }
  });

  /** A channel opened with a ticket the key itself asked for, as a script with only that key would. */
  async function openAs(key: string): Promise<WsClient> {
    const client = new HttpClient(gateway.server.baseUrl, { localAddress: '127.0.0.50', prefix: '' });
    const ticket = await client.get('/api/webui/ws-token', { headers: { authorization: `Bearer ${key}` }, cookie: null });
    expect(ticket.json, ticket.text).toMatchObject({ success: true });
    const handshake = await connect(gateway.server, String(ticket.json?.['token']));
    if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
    await handshake.client.waitFor((message) => message['event'] === 'ready', 3_000, 'system/ready');
    return handshake.client;
  }

  async function assertionOf(recorded: RecordedRequest | undefined): Promise<Record<string, unknown>> {
    const { payload } = await jwtVerify(String(recorded?.headers['x-webui-assertion']), assertionSecret(gateway.server), {
      issuer: 'webui',
      audience: 'upstream',
      algorithms: ['HS256'],
    });
    return payload as Record<string, unknown>;
  }

  it('a call is answered insufficient_scope and reaches nothing upstream, before or after its socket opened; subscribing passes', async () => {
    upstream.received.length = 0;
    upstream.channelMessages.length = 0;
    const client = await openAs(keys.viewer);
    client.send('{"op":"call","id":1,"domain":"chat","method":"message.send","data":{"text":"x"}}');
    const refused = await client.waitFor((m) => m.op === 'response' && m['id'] === 1, 3_000, 'the refused call');
    expect(refused).toEqual({ op: 'response', id: 1, ok: false, error: { code: 'insufficient_scope', message: expect.any(String) } });
    expect(upstream.received).toEqual([]);

    expect(await client.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: {} })).toMatchObject({ ok: true });
    const opened = await client.request({ op: 'call', domain: 'chat', method: 'session.open', session: 't', data: { user_name: 'r' } });
    expect(opened).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
    client.send({ op: 'ping' });
    await client.waitFor((m) => m.op === 'pong', 3_000, 'the socket stays open');
    expect(upstream.channelMessages.map((m) => (m.message as { op?: unknown } | undefined)?.op)).toEqual(['subscribe']);
    client.close();
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, "the reader's upstream socket closed");
  });

  it("the upstream socket's handshake and its ticket's request name the key, with assertions made for them; never the key", async () => {
    upstream.received.length = 0;
    const client = await openAs(keys.viewer);
    expect(await client.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: {} })).toMatchObject({ ok: true });
    const [ticket] = upstream.requestsTo('/api/webui/ws-token');
    const handshake = upstream.received.find((recorded) => recorded.upgrade);
    expect(handshake?.status).toBe(101);
    for (const recorded of [ticket, handshake]) {
      expect(recorded?.headers).toMatchObject({
        'x-webui-principal': 'key:viewer',
        'x-webui-scope': 'read',
        cookie: `maibot_session=${STAND_IN_TOKEN}`,
      });
      expect(JSON.stringify(recorded?.headers)).not.toContain(keys.viewer);
    }
    const [forTicket, forSocket] = [await assertionOf(ticket), await assertionOf(handshake)];
    expect(forTicket).toMatchObject({ sub: 'key:viewer', scope: 'read', method: 'GET', path: '/api/webui/ws-token' });
    expect(forSocket).toMatchObject({ sub: 'key:viewer', scope: 'read', method: 'GET', path: '/api/webui/ws' });
    expect(forSocket['jti']).toEqual(expect.any(String));
    expect(forSocket['jti']).not.toBe(forTicket['jti']);
    client.close();
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, "the reader's upstream socket closed");
  });

  it("an admin key's call is relayed, on a socket that names it", async () => {
    upstream.received.length = 0;
    const client = await openAs(keys.deployer);
    const call = { op: 'call', domain: 'chat', method: 'session.open', session: 'tab-9', data: { user_name: 'deployer' } };
    expect(await client.request(call)).toMatchObject({ ok: true, data: { session: 'tab-9' } });
    const handshake = upstream.received.find((recorded) => recorded.upgrade);
    expect(handshake?.headers).toMatchObject({ 'x-webui-principal': 'key:deployer', 'x-webui-scope': 'admin' });
    expect(await assertionOf(handshake)).toMatchObject({ sub: 'key:deployer', scope: 'admin', method: 'GET', path: '/api/webui/ws' });
    client.close();
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, "the deployer's upstream socket closed");
  });
});

describe('an upstream that cannot be reached', () => {
  it('a relayed call and subscribe answer ok:false upstream_unavailable, the client stays, and logs/main has our lines only', async () => {
    const gateway = await startGateway({ url: `http://127.0.0.1:${await freePort()}` });
    const client = await openChannel(gateway);
    const call = await client.request({ op: 'call', domain: 'chat', method: 'session.open', session: 's', data: {} });
    expect(call).toMatchObject({ op: 'response', ok: false, error: { code: 'upstream_unavailable' } });
    const monitor = await client.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: {} });
    expect(monitor).toMatchObject({ ok: false, error: { code: 'upstream_unavailable' } });
    client.send({ op: 'ping' });
    await client.waitFor((m) => m.op === 'pong', 3_000, 'pong on the same socket');

    expect(await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 100 } })).toMatchObject({ ok: true });
    const snapshot = await client.waitFor((m) => m['event'] === 'snapshot', 10_000, 'our snapshot');
    const entries = (snapshot['data'] as { entries: MergedEntry[] }).entries;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.id).toMatch(/^webui-/);
    client.close();
  });
});

describe('a token change closes the client with 4001 and its upstream socket with it', () => {
  it('POST /auth/update: the client gets 4001, the stand-in sees its socket closed', async () => {
    const upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    const gateway = await startGateway({ url: upstream.url });
    const client = await openChannel(gateway);
    expect(await client.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: {} })).toMatchObject({ ok: true });
    expect(upstream.openSockets).toBe(1);
    const updated = await gateway.operator.post('/api/webui/auth/update', { body: { new_token: STRONG_TOKEN } });
    expect(updated.status, updated.text).toBe(200);
    expect(await client.closedWithin(3_000)).toEqual({ code: 4001, reason: 'access token changed' });
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, 'the upstream socket closed');
  });
});
