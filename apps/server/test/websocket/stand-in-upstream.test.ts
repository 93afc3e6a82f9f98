import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeTempDir, cleanupServers } from '../harness/processes/server-process.js';
import {
  downloadByteAt,
  startStandInUpstream,
  stopAllStandInUpstreams,
  type BotLogEntry,
  type StandInUpstream,
} from '../harness/stand-in-upstream.js';
import { WsClient, type Envelope } from '../harness/clients/ws-client.js';

/** The stand-in upstream tells the truth about the original's wire: its cookie check, one-time tickets, envelopes, and what it recorded. */

const TOKEN = 'Upstream-Token_2026x';
const COOKIE = `maibot_session=${TOKEN}`;
const LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];

let upstream: StandInUpstream;
beforeEach(async () => {
  upstream = await startStandInUpstream({ token: TOKEN });
});
afterEach(() => stopAllStandInUpstreams());
afterAll(cleanupServers);

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${upstream.url}${path}`, { headers });
const withCookie = { cookie: COOKIE };

async function ticket(): Promise<string> {
  const body = (await (await get('/api/webui/ws-token', withCookie)).json()) as { success: boolean; token: string };
  expect(body.success).toBe(true);
  return body.token;
}

type Opened = { opened: true; client: WsClient } | { opened: false; status: number };
function openChannel(query: string, headers: Record<string, string> = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${upstream.port}/api/webui/ws${query}`, { headers });
    const client = new WsClient(socket);
    socket.once('unexpected-response', (_request, res) => {
      res.resume();
      socket.on('error', () => undefined);
      socket.terminate();
      resolve({ opened: false, status: res.statusCode ?? 0 });
    });
    socket.once('error', reject);
    socket.once('open', () => resolve({ opened: true, client }));
  });
}

async function channel(): Promise<WsClient> {
  const opened = await openChannel(`?token=${encodeURIComponent(await ticket())}`);
  if (!opened.opened) throw new Error(`handshake refused with ${opened.status}`);
  await opened.client.waitFor((message) => message['event'] === 'ready', 3_000, 'ready');
  return opened.client;
}

const lastEvent = (client: WsClient, domain: string, event: string) => client.events(domain, event).at(-1);

describe('its own cookie check', () => {
  it('answers a cookie-checked route only with maibot_session=<its token>, 401 {detail} otherwise', async () => {
    for (const cookie of [undefined, 'maibot_session=wrong', `bot_session=${TOKEN}`]) {
      const answer = await get('/api/webui/config/bot', cookie === undefined ? {} : { cookie });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(Object.keys((await answer.json()) as object)).toEqual(['detail']);
    }
    const good = await get('/api/webui/config/bot', { cookie: `other=1; ${COOKIE}` });
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({ success: true, config: { bot: { nickname: 'StandInBot' } } });
  });

  it('answers the version check without a cookie, and 422 without webui_version, as FastAPI', async () => {
    const answer = await get('/api/webui/version-compatibility?webui_version=1.7.1');
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'compatible', webui_version: '1.7.1' });
    expect(typeof body['main_program_version']).toBe('string');
    expect(typeof body['required_webui_version']).toBe('string');
    expect((await get('/api/webui/version-compatibility')).status).toBe(422);
  });

  it('answers 404 and 405 {detail} for paths and methods it does not have', async () => {
    expect(await (await get('/api/webui/nothing-here', withCookie)).json()).toEqual({ detail: 'Not Found' });
    const wrongMethod = await fetch(`${upstream.url}/api/chat/ping`, { method: 'DELETE', headers: withCookie });
    expect(wrongMethod.status).toBe(405);
  });

  it('refuseAll: the cookie stops working (401, ws-token success:false, tickets void); the version check still answers', async () => {
    const before = await ticket();
    upstream.setBehaviour({ refuseAll: true });
    expect((await get('/api/webui/config/bot', withCookie)).status).toBe(401);
    expect((await get('/api/chat/ping', withCookie)).status).toBe(401);
    const refused = await get('/api/webui/ws-token', withCookie);
    expect(refused.status).toBe(200);
    expect(await refused.json()).toMatchObject({ success: false, token: null });
    expect(await openChannel(`?token=${before}`)).toEqual({ opened: false, status: 403 });
    expect((await get('/api/webui/version-compatibility?webui_version=1.7.1')).status).toBe(200);
    upstream.setBehaviour({ refuseAll: false });
    expect((await get('/api/webui/config/bot', withCookie)).status).toBe(200);
  });
});

describe('ws-token and the handshake', () => {
  it('gives a ticket only with its cookie, and 200 {success:false, token:null} without (never a 401)', async () => {
    const without = await get('/api/webui/ws-token');
    expect(without.status).toBe(200);
    expect(await without.json()).toMatchObject({ success: false, token: null });
    const body = (await (await get('/api/webui/ws-token', withCookie)).json()) as Record<string, unknown>;
    expect(body).toEqual({ success: true, token: expect.stringMatching(/^[\w-]{43}$/), expires_in: 60 });
    expect(upstream.outstandingTickets).toBe(1);
  });

  it('lets a ticket open one socket: the same ticket again, none, or a made-up one get 403', async () => {
    const one = await ticket();
    const first = await openChannel(`?token=${one}`);
    expect(first.opened).toBe(true);
    expect(await openChannel(`?token=${one}`)).toEqual({ opened: false, status: 403 });
    expect(await openChannel('')).toEqual({ opened: false, status: 403 });
    expect(await openChannel('?token=made-up')).toEqual({ opened: false, status: 403 });
    expect(upstream.outstandingTickets).toBe(0);
    expect(upstream.connections.map((connection) => connection.authenticatedBy)).toEqual(['ticket']);
  });

  it('also lets the session cookie open the socket, as the original does', async () => {
    const opened = await openChannel('', withCookie);
    expect(opened.opened).toBe(true);
    expect(upstream.connections[0]?.authenticatedBy).toBe('cookie');
  });

  it('says ready on open with its connection id, and counts and closes its open sockets', async () => {
    const [a, b] = [await channel(), await channel()];
    const ready = a.events('system', 'ready')[0] as Envelope;
    expect(ready).toEqual({
      op: 'event',
      domain: 'system',
      event: 'ready',
      data: { connection_id: expect.stringMatching(/^[0-9a-f]{32}$/), timestamp: expect.any(Number) },
    });
    expect(upstream.openSockets).toBe(2);
    upstream.closeSockets(1011);
    expect((await a.closedWithin(3_000)).code).toBe(1011);
    expect((await b.closedWithin(3_000)).code).toBe(1011);
    await upstream.waitFor(() => upstream.openSockets === 0, 3_000, 'every socket closed');
    expect(upstream.connections.map((connection) => [connection.open, connection.closeCode])).toEqual([
      [false, 1011],
      [false, 1011],
    ]);
  });
});

describe('the channel envelopes', () => {
  it('answers ping with pong, and an unknown op, a call on another domain and a non-object with ok:false', async () => {
    const client = await channel();
    client.send({ op: 'ping' });
    const pong = await client.waitFor((message) => message.op === 'pong');
    expect(pong).toEqual({ op: 'pong', ts: expect.any(Number) });
    expect(await client.request({ op: 'shout' })).toMatchObject({ ok: false, error: { code: 'unsupported_operation' } });
    expect(await client.request({ op: 'call', domain: 'memory', method: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported_domain' },
    });
    client.send([1, 2]);
    await client.waitFor((message) => message.op === 'response' && message['id'] === null);
    expect(client.messages.at(-1)).toEqual({
      op: 'response',
      id: null,
      ok: false,
      error: { code: 'invalid_message', message: expect.any(String) },
    });
  });

  it('logs/main: ok, then one snapshot of the last `replay` lines oldest first in its own ids and levels, then live entries', async () => {
    const client = await channel();
    const subscribed = await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 2 } });
    expect(subscribed).toEqual({ op: 'response', id: subscribed['id'], ok: true, data: { domain: 'logs', topic: 'main' } });
    const snapshot = await client.waitFor((message) => message['event'] === 'snapshot');
    expect(snapshot).toMatchObject({ op: 'event', domain: 'logs', topic: 'main' });
    const entries = (snapshot['data'] as { entries: BotLogEntry[] }).entries;
    expect(entries.map((entry) => entry.message)).toEqual(['no model configured', 'channel ready']);
    for (const entry of entries) {
      // A snapshot's timestamps are its log file's (no year), its ids made of their digits and a place counted from the newest.
      expect(entry.timestamp).toMatch(/^\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(entry.id).toMatch(/^\d{10}_\d+$/);
      expect(LEVELS).toContain(entry.level);
    }
    expect(entries[0]).toMatchObject({ level: 'WARNING', module: 'config', moduleColor: '#ffaa00' });

    const sent = upstream.emitLog({ level: 'ERROR', module: 'chat', message: 'a live line' });
    const live = await client.waitFor((message) => message['event'] === 'entry');
    expect(live).toEqual({ op: 'event', domain: 'logs', event: 'entry', topic: 'main', data: { entry: sent } });
    expect(sent).toMatchObject({ id: expect.stringMatching(/^\d{13}_\d+$/), level: 'ERROR', module: 'chat', moduleDisplayName: 'chat' });
    expect(sent.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    // A later snapshot holds the live line too (under a snapshot id), and `replay` 0 means 100, as in the original.
    await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 0 } });
    await upstream.waitFor(() => client.events('logs', 'snapshot').length === 2 || undefined, 3_000, 'second snapshot');
    const again = (lastEvent(client, 'logs', 'snapshot')?.['data'] as { entries: BotLogEntry[] }).entries;
    expect(again.map((entry) => entry.message)).toEqual(['MaiBot started', 'no model configured', 'channel ready', 'a live line']);
  });

  it('sends live log lines only to subscribers, and stops after unsubscribe', async () => {
    const [subscriber, bystander] = [await channel(), await channel()];
    await subscriber.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: {} });
    upstream.emitLog({ message: 'one' });
    await subscriber.waitFor((message) => message['event'] === 'entry');
    expect(await subscriber.request({ op: 'unsubscribe', domain: 'logs', topic: 'main', data: {} })).toMatchObject({ ok: true });
    expect(await subscriber.request({ op: 'unsubscribe', domain: 'logs' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_unsubscribe' },
    });
    upstream.emitLog({ message: 'two' });
    // A ping after the emit: its pong arrives after anything the emit would have sent.
    for (const client of [subscriber, bystander]) {
      client.send({ op: 'ping' });
      await client.waitFor((message) => message.op === 'pong');
    }
    expect(subscriber.events('logs', 'entry')).toHaveLength(1);
    expect(bystander.events('logs', 'entry')).toHaveLength(0);
  });

  it('maisaka_monitor/main: ok, a replay of the recorded events with their ids, stage.snapshot, then live events', async () => {
    upstream.emitMonitor('planner.started', { chat: 'a' });
    upstream.emitMonitor('planner.finished', { chat: 'a' });
    const client = await channel();
    const subscribed = await client.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: {} });
    expect(subscribed).toMatchObject({
      ok: true,
      data: { domain: 'maisaka_monitor', topic: 'main', since_event_id: 0, replay_limit: 1000 },
    });
    await client.waitFor((message) => message['event'] === 'stage.snapshot');
    const monitor = client.messages.filter((message) => message['domain'] === 'maisaka_monitor');
    expect(monitor.map((message) => [message['event'], (message['data'] as { event_id?: number }).event_id])).toEqual([
      ['planner.started', 1],
      ['planner.finished', 2],
      ['stage.snapshot', undefined],
    ]);
    expect(monitor[2]).toMatchObject({ topic: 'main', data: { entries: [], timestamp: expect.any(Number) } });

    upstream.emitMonitor('reply.sent', { text: 'hi' });
    const live = await client.waitFor((message) => message['event'] === 'reply.sent');
    expect(live).toEqual({
      op: 'event',
      domain: 'maisaka_monitor',
      event: 'reply.sent',
      topic: 'main',
      data: { text: 'hi', event_id: 3, schema_version: 1 },
    });
    // A transient event (the original's stage.status) is sent live without an id, and never replayed.
    upstream.emitMonitor('stage.status', { stage: 'idle' }, { transient: true });
    const status = await client.waitFor((message) => message['event'] === 'stage.status');
    expect(status['data']).toEqual({ stage: 'idle' });

    const since = await channel();
    await since.request({ op: 'subscribe', domain: 'maisaka_monitor', topic: 'main', data: { since_event_id: 2 } });
    await since.waitFor((message) => message['event'] === 'stage.snapshot');
    expect(since.messages.filter((message) => message['domain'] === 'maisaka_monitor').map((message) => message['event'])).toEqual([
      'reply.sent',
      'stage.snapshot',
    ]);
  });

  it('plugin_progress/main: ok, a snapshot {progress}, then updates; memory gets unsupported_subscription', async () => {
    const client = await channel();
    expect(await client.request({ op: 'subscribe', domain: 'plugin_progress', topic: 'main', data: {} })).toMatchObject({ ok: true });
    const snapshot = await client.waitFor((message) => message['domain'] === 'plugin_progress');
    expect(snapshot).toMatchObject({ event: 'snapshot', data: { progress: { operation: 'idle', stage: 'idle', progress: 0 } } });
    upstream.emitProgress({ operation: 'install', stage: 'loading', progress: 50, message: 'half', total_plugins: 1, loaded_plugins: 0 });
    expect(await client.waitFor((message) => message['event'] === 'update')).toMatchObject({ data: { progress: { progress: 50 } } });
    const memory = await client.request({ op: 'subscribe', domain: 'memory', topic: 'main', data: {} });
    expect(memory).toEqual({
      op: 'response',
      id: memory['id'],
      ok: false,
      error: { code: 'unsupported_subscription', message: expect.any(String) },
    });
  });

  it('chat: session.open answers {session, session_id} and sends the session its events; message.send echoes; session.close', async () => {
    const client = await channel();
    const opened = await client.request({
      op: 'call',
      domain: 'chat',
      method: 'session.open',
      session: 'tab-1',
      data: { user_name: 'Ann' },
    });
    const connectionId = (client.events('system', 'ready')[0]?.['data'] as { connection_id: string }).connection_id;
    expect(opened).toMatchObject({ ok: true, data: { session: 'tab-1', session_id: `${connectionId}:tab-1`, client_mode: 'webui' } });
    await client.waitFor((message) => message['event'] === 'system');
    expect(
      client.messages.filter((message) => message['domain'] === 'chat').map((message) => [message['event'], message['session']]),
    ).toEqual([
      ['session_info', 'tab-1'],
      ['history', 'tab-1'],
      ['system', 'tab-1'],
    ]);
    expect(lastEvent(client, 'chat', 'session_info')).toMatchObject({ data: { type: 'session_info', user_name: 'Ann' } });

    const sent = await client.request({ op: 'call', domain: 'chat', method: 'message.send', session: 'tab-1', data: { content: 'hello' } });
    expect(sent).toMatchObject({ ok: true, data: { accepted: true, session: 'tab-1' } });
    const echoed = await client.waitFor((message) => message['event'] === 'user_message');
    expect(echoed).toMatchObject({
      domain: 'chat',
      session: 'tab-1',
      data: { type: 'user_message', content: 'hello', sender: { is_bot: false } },
    });
    await client.waitFor((message) => message['event'] === 'typing' && (message['data'] as { is_typing: boolean }).is_typing === false);
    expect(client.events('chat', 'typing').map((message) => message['data'])).toEqual([
      { type: 'typing', is_typing: true },
      { type: 'typing', is_typing: false },
    ]);

    // A nickname update: the session's event comes before the response, as in the original.
    client.send({
      op: 'call',
      id: 'nick',
      domain: 'chat',
      method: 'session.update_nickname',
      session: 'tab-1',
      data: { user_name: 'Bob' },
    });
    await client.waitFor((message) => message['id'] === 'nick');
    expect(client.messages.slice(-2)).toMatchObject([
      { op: 'event', domain: 'chat', event: 'nickname_updated', session: 'tab-1', data: { user_name: 'Bob' } },
      { op: 'response', id: 'nick', ok: true, data: { session: 'tab-1', user_name: 'Bob' } },
    ]);

    expect(await client.request({ op: 'call', domain: 'chat', method: 'session.close', session: 'tab-1' })).toMatchObject({
      ok: true,
      data: { session: 'tab-1' },
    });
    expect(await client.request({ op: 'call', domain: 'chat', method: 'message.send', session: 'tab-1', data: {} })).toMatchObject({
      ok: false,
      error: { code: 'session_not_found' },
    });
    expect(await client.request({ op: 'call', domain: 'chat', method: 'session.open' })).toMatchObject({
      ok: false,
      error: { code: 'missing_session' },
    });
    expect(await client.request({ op: 'call', domain: 'chat', method: 'dance', session: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported_method' },
    });
  });

  it('records every message with the connection it came on; a frame that is not JSON closes the socket, as in the original', async () => {
    const [a, b] = [await channel(), await channel()];
    a.send({ op: 'ping' });
    await a.waitFor((message) => message.op === 'pong');
    b.send({ op: 'subscribe', id: 'x1', domain: 'chat', topic: 'main' });
    await b.waitFor((message) => message['id'] === 'x1');
    b.send('not json');
    expect((await b.closedWithin(3_000)).code).toBe(1000);
    const [idA, idB] = upstream.connections.map((connection) => connection.id);
    expect(upstream.channelMessages).toEqual([
      { connection: idA, raw: '{"op":"ping"}', message: { op: 'ping' } },
      {
        connection: idB,
        raw: '{"op":"subscribe","id":"x1","domain":"chat","topic":"main"}',
        message: { op: 'subscribe', id: 'x1', domain: 'chat', topic: 'main' },
      },
      { connection: idB, raw: 'not json', message: undefined },
    ]);
  });
});

describe('what it records of each request', () => {
  it('keeps method, path and query, every header in lower case, the body size and its own status', async () => {
    await fetch(`${upstream.url}/api/webui/config/bot?x=1&y=2`, {
      method: 'POST',
      headers: {
        Cookie: `bot_session=ours; ${COOKIE}`,
        Authorization: 'Bearer secret',
        'X-WebUI-Principal': 'forged',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ bot: { nickname: 'Renamed' } }),
    });
    const [recorded] = upstream.received;
    expect(recorded).toMatchObject({
      seq: 1,
      method: 'POST',
      url: '/api/webui/config/bot?x=1&y=2',
      path: '/api/webui/config/bot',
      status: 200,
      upgrade: false,
    });
    expect(recorded?.headers).toMatchObject({
      cookie: `bot_session=ours; ${COOKIE}`,
      authorization: 'Bearer secret',
      'x-webui-principal': 'forged',
    });
    expect(recorded?.bodyBytes).toBe(JSON.stringify({ bot: { nickname: 'Renamed' } }).length);
    expect(await (await get('/api/webui/config/bot', withCookie)).json()).toMatchObject({ config: { bot: { nickname: 'Renamed' } } });
  });

  it('records refused requests and handshakes too', async () => {
    await get('/api/webui/config/bot');
    await openChannel('?token=nope', { 'x-webui-scope': 'admin' });
    expect(upstream.received.map((recorded) => [recorded.path, recorded.status, recorded.upgrade])).toEqual([
      ['/api/webui/config/bot', 401, false],
      ['/api/webui/ws', 403, true],
    ]);
    expect(upstream.received[1]?.headers['x-webui-scope']).toBe('admin');
    expect(upstream.requestsTo('/api/webui/ws')).toHaveLength(1);
  });
});

describe('the routes for the gateway tests', () => {
  it('takes an upload as a stream: the first chunk arrives while the sender still holds the rest', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const chunk = new Uint8Array(64 * 1024).fill(7);
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(chunk);
        await held;
        for (let n = 0; n < 15; n += 1) controller.enqueue(chunk);
        controller.close();
      },
    });
    const answer = fetch(`${upstream.url}/api/webui/upload`, { method: 'POST', headers: withCookie, body, duplex: 'half' } as RequestInit);
    const recorded = await upstream.waitFor(
      () => upstream.requestsTo('/api/webui/upload').find((request) => request.bodyBytes > 0),
      5_000,
      'the first chunk',
    );
    expect(recorded.bodyEndedAt).toBeUndefined();
    expect(recorded.firstChunkAt).toEqual(expect.any(Number));
    release();
    expect(await (await answer).json()).toEqual({ bytes: 16 * 64 * 1024 });
    expect(recorded.bodyBytes).toBe(16 * 64 * 1024);
  });

  it('streams a download of N bytes in its known pattern, with or without a length', async () => {
    for (const query of ['bytes=200000', 'bytes=200000&chunked=1']) {
      const answer = await get(`/api/webui/download?${query}`, withCookie);
      expect(answer.headers.get('content-length')).toBe(query.includes('chunked') ? null : '200000');
      const bytes = new Uint8Array(await answer.arrayBuffer());
      expect(bytes.length).toBe(200_000);
      expect(bytes.every((byte, offset) => byte === downloadByteAt(offset))).toBe(true);
    }
    expect(upstream.requestsTo('/api/webui/download').map((recorded) => recorded.responseBytes)).toEqual([200_000, 200_000]);
  });

  it('sends server-sent events: a few then the end, or held open for more', async () => {
    const ended = await get('/api/webui/events?count=2', withCookie);
    expect(ended.headers.get('content-type')).toBe('text/event-stream');
    expect(await ended.text()).toBe('event: tick\ndata: {"n":1}\n\nevent: tick\ndata: {"n":2}\n\n');

    const held = await get('/api/webui/events?count=1&hold=1', withCookie);
    const reader = (held.body as ReadableStream<Uint8Array>).getReader();
    const next = async () => new TextDecoder().decode((await reader.read()).value);
    expect(await next()).toBe('event: tick\ndata: {"n":1}\n\n');
    upstream.pushServerEvent({ pushed: true });
    expect(await next()).toBe('event: tick\ndata: {"pushed":true}\n\n');
    await reader.cancel();
  });

  it('answers slow after its delay, sets its own cookie and a bot_session one, and serves /api/chat and /', async () => {
    expect(await (await get('/api/webui/slow?ms=30', withCookie)).json()).toEqual({ slept: 30 });
    const cookies = await get('/api/webui/set-cookies', withCookie);
    expect(cookies.headers.getSetCookie()).toEqual(['maibot_x=1; Path=/', 'bot_session=evil; Path=/; HttpOnly']);
    expect(await (await get('/api/chat/ping', withCookie)).json()).toEqual({ pong: true });
    const page = await get('/', withCookie);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/^<!doctype html>/);
    const headOnly = await fetch(`${upstream.url}/`, { method: 'HEAD', headers: withCookie });
    expect([headOnly.status, await headOnly.text()]).toEqual([200, '']);
  });
});

describe('on a Unix socket', () => {
  it('listens there instead of a TCP port', async () => {
    const socketPath = join(makeTempDir('stand-in-'), 'upstream.sock');
    const onSocket = await startStandInUpstream({ token: TOKEN, socketPath });
    expect([onSocket.url, onSocket.port, onSocket.socketPath]).toEqual(['http://localhost', 0, socketPath]);
    const body = await new Promise<string>((resolve, reject) => {
      const request = httpRequest({ socketPath, path: '/api/webui/ws-token', headers: withCookie }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
      });
      request.on('error', reject);
      request.end();
    });
    expect(JSON.parse(body)).toMatchObject({ success: true });
    expect(onSocket.received).toHaveLength(1);
  });
});
