import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { type ClientOptions } from 'ws';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile, webuiFilePath } from '../harness/webui-file.js';
import { connect, WsClient, type Envelope } from '../harness/clients/ws-client.js';

/**
 * The unified channel GET /api/webui/ws?token=<ticket> (opened only with a live ticket, sockets capped: docs/decisions/0013-websocket-channel.md, docs/decisions/0014-bounded-memory.md) against the real
 * server
 * bundle with a real WebSocket client. Ticket expiry needs a fake clock: it is proven at the core
 * (packages/core/src/domain/ws-ticket-issuer.test.ts) and through the route (packages/http-hono/src/features/channel/ws-routes.test.ts).
 * A secret-key rotation happens only at startup, so no socket can outlive it: a restart closes them all.
 */

afterAll(cleanupServers);

const DEBUG_CONFIG = '[webui]\nlog_level = "debug"\n';
const MAX_MESSAGE_BYTES = 64 * 1024;

type LogEntry = { id: string; timestamp: string; level: string; module: string; message: string };
/** The only levels the existing dashboard shows under its filters (docs/dashboard.md §4). */
const DASHBOARD_LEVEL = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL)$/;

async function open(server: ServerProcess, ticket: string, options: ClientOptions = {}): Promise<WsClient> {
  const handshake = await connect(server, ticket, options);
  if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
  await handshake.client.waitFor((message) => message['event'] === 'ready', 3_000, 'system/ready');
  return handshake.client;
}

async function refusedStatus(server: ServerProcess, ticket: string | undefined, options: ClientOptions = {}): Promise<number> {
  const handshake = await connect(server, ticket, options);
  if (handshake.opened) {
    handshake.client.close();
    throw new Error('the handshake was accepted');
  }
  return handshake.status;
}

/** A logged-in HTTP client of `server`. */
async function loggedIn(server: ServerProcess): Promise<HttpClient> {
  const client = new HttpClient(server.baseUrl);
  const token = readWebuiFile(server.dataDir).access_token;
  const answer = await client.post('/auth/verify', { body: { token } });
  expect(answer.json).toMatchObject({ valid: true });
  return client;
}

async function ticketOf(client: HttpClient): Promise<string> {
  const answer = await client.get('/ws-token');
  expect(answer.json).toMatchObject({ success: true, expires_in: 60 });
  return String(answer.json?.['token']);
}

describe('handshake', () => {
  let server: ServerProcess;
  let http: HttpClient;

  beforeAll(async () => {
    server = await startServer({ config: DEBUG_CONFIG });
    http = await loggedIn(server);
  });

  it('a live ticket opens the socket (101); the server sends system/ready first', async () => {
    const handshake = await connect(server, await ticketOf(http));
    expect(handshake.opened).toBe(true);
    if (!handshake.opened) return;
    const ready = await handshake.client.waitFor(() => true);
    expect(ready).toEqual({
      op: 'event',
      domain: 'system',
      event: 'ready',
      data: { connection_id: expect.any(String), timestamp: expect.any(Number) },
    });
    expect(Math.abs((ready['data'] as { timestamp: number }).timestamp - Date.now())).toBeLessThan(10_000);
    handshake.client.close();
  });

  it('the ticket is spent: a replay is refused with 401 and no upgrade', async () => {
    const ticket = await ticketOf(http);
    (await open(server, ticket)).close();
    expect(await refusedStatus(server, ticket)).toBe(401);
    expect(await refusedStatus(server, ticket)).toBe(401);
  });

  it('missing, empty and unknown tickets: 401', async () => {
    expect(await refusedStatus(server, undefined)).toBe(401);
    expect(await refusedStatus(server, '')).toBe(401);
    expect(await refusedStatus(server, 'A'.repeat(43))).toBe(401);
    // The session token itself is not a ticket.
    expect(await refusedStatus(server, readWebuiFile(server.dataDir).access_token)).toBe(401);
  });

  it('a foreign Origin gets 403 before the ticket is looked at; the same ticket then opens without Origin', async () => {
    const ticket = await ticketOf(http);
    expect(await refusedStatus(server, ticket, { origin: 'http://evil.example' })).toBe(403);
    expect(await refusedStatus(server, 'A'.repeat(43), { origin: 'http://evil.example' })).toBe(403);
    (await open(server, ticket)).close();
  });

  it('the server`s own origin is allowed', async () => {
    (await open(server, await ticketOf(http), { origin: server.baseUrl })).close();
  });

  it('concurrent handshakes with one ticket: exactly one opens', async () => {
    const ticket = await ticketOf(http);
    const results = await Promise.all([connect(server, ticket), connect(server, ticket), connect(server, ticket)]);
    expect(results.filter((result) => result.opened)).toHaveLength(1);
    expect(results.filter((result) => !result.opened).map((result) => (result as { status: number }).status)).toEqual([401, 401]);
    for (const result of results) if (result.opened) result.client.close();
  });

  it('a plain HTTP GET of /ws (no Upgrade) is not an upgrade: 426', async () => {
    const answer = await http.get(`/ws?token=${await ticketOf(http)}`);
    expect(answer.status).toBe(426);
  });

  it('the startup log and the request log never show the ticket', async () => {
    const ticket = await ticketOf(http);
    (await open(server, ticket)).close();
    await server.waitForLog((line) => line.msg === 'request' && line['path'] === '/api/webui/ws');
    expect(server.stdout()).not.toContain(ticket);
  });
});

describe('protocol', () => {
  let server: ServerProcess;
  let http: HttpClient;

  beforeAll(async () => {
    server = await startServer({ config: DEBUG_CONFIG });
    http = await loggedIn(server);
  });

  it('{op:"ping"} -> {op:"pong",ts}', async () => {
    const client = await open(server, await ticketOf(http));
    client.send({ op: 'ping' });
    const pong = await client.waitFor((message) => message.op === 'pong');
    expect(pong).toEqual({ op: 'pong', ts: expect.any(Number) });
    client.close();
  });

  it(
    'unknown op, unknown domain/topic, non-JSON and non-object messages -> ok:false with error{code,message}; the ' + 'connection stays',
    async () => {
      const client = await open(server, await ticketOf(http));
      expect(await client.request({ op: 'shout' })).toEqual({
        op: 'response',
        id: 'r1',
        ok: false,
        error: { code: 'unknown_op', message: expect.any(String) },
      });
      expect(await client.request({ op: 'subscribe', domain: 'weather', topic: 'main' })).toMatchObject({
        ok: false,
        error: { code: 'unknown_topic' },
      });
      expect(await client.request({ op: 'subscribe', domain: 'logs', topic: 'side' })).toMatchObject({
        ok: false,
        error: { code: 'unknown_topic' },
      });
      expect(await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 501 } })).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
      const before = client.messages.length;
      client.send('this is not json');
      client.send('[1,2,3]');
      client.send('17');
      await eventually(() => client.messages.length >= before + 3, 3_000, 'three answers');
      expect(client.messages.slice(before)).toEqual([
        { op: 'response', id: null, ok: false, error: { code: 'invalid_json', message: expect.any(String) } },
        { op: 'response', id: null, ok: false, error: { code: 'invalid_message', message: expect.any(String) } },
        { op: 'response', id: null, ok: false, error: { code: 'invalid_message', message: expect.any(String) } },
      ]);
      client.send({ op: 'ping' });
      await client.waitFor((message) => message.op === 'pong');
      expect(client.socket.readyState).toBe(WebSocket.OPEN);
      client.close();
    },
  );

  it('a message of exactly 64 KiB is served; one byte more closes the socket with 1009', async () => {
    const fits = await open(server, await ticketOf(http));
    const base = JSON.stringify({ op: 'ping', pad: '' });
    fits.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(MAX_MESSAGE_BYTES - base.length) }));
    await fits.waitFor((message) => message.op === 'pong');
    expect(fits.socket.readyState).toBe(WebSocket.OPEN);
    fits.close();

    const tooBig = await open(server, await ticketOf(http));
    tooBig.socket.on('error', () => undefined);
    tooBig.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(MAX_MESSAGE_BYTES - base.length + 1) }));
    expect((await tooBig.closedWithin(3_000)).code).toBe(1009);
    // The server is fine afterwards.
    expect((await http.get('/health')).status).toBe(200);
  });

  it('domain plugin_progress: a snapshot of one idle progress object (no plugin system publishes here)', async () => {
    const client = await open(server, await ticketOf(http));
    expect(await client.request({ op: 'subscribe', domain: 'plugin_progress', topic: 'main' })).toEqual({
      op: 'response',
      id: 'r1',
      ok: true,
      data: { domain: 'plugin_progress', topic: 'main' },
    });
    const snapshot = await client.waitFor((message) => message['event'] === 'snapshot');
    expect(snapshot).toEqual({
      op: 'event',
      domain: 'plugin_progress',
      topic: 'main',
      event: 'snapshot',
      data: {
        progress: {
          operation: 'idle',
          stage: 'idle',
          progress: 0,
          message: '',
          error: null,
          plugin_id: null,
          total_plugins: 0,
          loaded_plugins: 0,
        },
      },
    });
    client.close();
  });
});

describe('domain logs, topic main', () => {
  let server: ServerProcess;
  let http: HttpClient;

  beforeAll(async () => {
    server = await startServer({ config: DEBUG_CONFIG });
    http = await loggedIn(server);
  });

  // A live line is data.entry: the dashboard appends nothing else (docs/dashboard.md §4).
  const entriesOf = (client: WsClient): LogEntry[] =>
    client.events('logs', 'entry').map((event) => (event['data'] as { entry: LogEntry }).entry);

  it('subscribe -> response, then one snapshot of recent entries (default 100) with the startup lines', async () => {
    const client = await open(server, await ticketOf(http));
    const response = await client.request({ op: 'subscribe', domain: 'logs', topic: 'main' });
    expect(response).toEqual({ op: 'response', id: 'r1', ok: true, data: { domain: 'logs', topic: 'main' } });
    const snapshot = await client.waitFor((message) => message['event'] === 'snapshot');
    expect(client.messages.indexOf(snapshot)).toBe(client.messages.indexOf(response) + 1);
    expect(snapshot).toMatchObject({ op: 'event', domain: 'logs', topic: 'main', event: 'snapshot' });
    const entries = (snapshot['data'] as { entries: LogEntry[] }).entries;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length).toBeLessThanOrEqual(100);
    for (const entry of entries) {
      expect(entry).toEqual({
        id: expect.any(String),
        timestamp: expect.any(String),
        level: expect.stringMatching(DASHBOARD_LEVEL),
        module: expect.any(String),
        message: expect.any(String),
      });
      expect(Number.isNaN(Date.parse(entry.timestamp))).toBe(false);
    }
    expect(entries.map((entry) => entry.message)).toContain('WebUI API listening');
    const ids = entries.map((entry) => entry.id);
    expect(ids).toEqual([...ids].sort());
    // The temporary token is a field of a startup line, never part of the stream.
    expect(JSON.stringify(snapshot)).not.toContain(readWebuiFile(server.dataDir).access_token);
    client.close();
  });

  it.each([
    [0, 0],
    [2, 2],
  ])('data.replay %i -> %i entries', async (replay, expected) => {
    const client = await open(server, await ticketOf(http));
    await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay } });
    const snapshot = await client.waitFor((message) => message['event'] === 'snapshot');
    expect((snapshot['data'] as { entries: LogEntry[] }).entries).toHaveLength(expected);
    client.close();
  });

  it('after a request is made, every subscriber gets its log line as an entry event, in order', async () => {
    const first = await open(server, await ticketOf(http));
    const second = await open(server, await ticketOf(http));
    for (const client of [first, second]) {
      await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 5 } });
      await client.waitFor((message) => message['event'] === 'snapshot');
    }
    const snapshotIds = (second.events('logs', 'snapshot')[0]?.['data'] as { entries: LogEntry[] }).entries.map((entry) => entry.id);

    expect((await http.get('/health')).status).toBe(200);
    expect((await http.get('/no/such/endpoint')).status).toBe(404);
    for (const client of [first, second]) {
      await eventually(() => entriesOf(client).filter((entry) => entry.message === 'request').length >= 2, 3_000, 'two request entries');
    }
    const firstEntries = entriesOf(first);
    const secondEntries = entriesOf(second);
    const health = firstEntries.find((entry) => entry.message === 'request');
    expect(health).toEqual({ id: expect.any(String), timestamp: expect.any(String), level: 'DEBUG', module: 'http', message: 'request' });
    for (const event of first.events('logs', 'entry')) expect(Object.keys(event['data'] as object)).toEqual(['entry']);
    // Both subscribers see the same lines with the same ids, in increasing order, after the snapshot.
    const common = Math.min(firstEntries.length, secondEntries.length);
    expect(secondEntries.slice(0, common).map((entry) => entry.id)).toEqual(firstEntries.slice(0, common).map((entry) => entry.id));
    for (const entries of [firstEntries, secondEntries]) {
      const ids = entries.map((entry) => entry.id);
      expect(ids).toEqual([...ids].sort());
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(secondEntries.every((entry) => snapshotIds.every((id) => entry.id > id))).toBe(true);
    // A later snapshot carries the same lines under the same ids (the dashboard de-duplicates by id).
    const late = await open(server, await ticketOf(http));
    await late.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 500 } });
    const lateEntries = ((await late.waitFor((message) => message['event'] === 'snapshot'))['data'] as { entries: LogEntry[] }).entries;
    expect(lateEntries.find((entry) => entry.id === health?.id)).toEqual(health);
    late.close();
    // The log stdout has the same lines.
    expect(server.logs().filter((line) => line.msg === 'request' && line['path'] === '/api/webui/health').length).toBeGreaterThan(0);
    first.close();
    second.close();
  });

  it('unsubscribe -> response; no more entries', async () => {
    const client = await open(server, await ticketOf(http));
    await client.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 0 } });
    expect(await client.request({ op: 'unsubscribe', domain: 'logs', topic: 'main' })).toMatchObject({ ok: true });
    const watcher = await open(server, await ticketOf(http));
    await watcher.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 0 } });
    await http.get('/health');
    await eventually(() => entriesOf(watcher).some((entry) => entry.message === 'request'), 3_000, 'the watcher sees the request');
    expect(entriesOf(client)).toEqual([]);
    client.close();
    watcher.close();
  });
});

describe('access token changes close sockets with 4001', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ config: DEBUG_CONFIG });
  });

  it('POST /auth/regenerate closes both open sockets of the old token at once; their new tickets are dead', async () => {
    const http = await loggedIn(server);
    const a = await open(server, await ticketOf(http));
    const b = await open(server, await ticketOf(http));
    const unused = await ticketOf(http);
    const rotated = await http.post('/auth/regenerate');
    expect(rotated.status).toBe(200);
    const [closeA, closeB] = await Promise.all([a.closedWithin(1_000), b.closedWithin(1_000)]);
    expect(closeA).toEqual({ code: 4001, reason: 'access token changed' });
    expect(closeB).toEqual({ code: 4001, reason: 'access token changed' });
    // A ticket issued under the old token is refused.
    expect(await refusedStatus(server, unused)).toBe(401);
  });

  it('POST /auth/update closes sockets of the old token; sockets of the new token work', async () => {
    const http = await loggedIn(server);
    const before = await open(server, await ticketOf(http));
    expect((await http.post('/auth/update', { body: { new_token: STRONG_TOKEN } })).status).toBe(200);
    expect((await before.closedWithin(1_000)).code).toBe(4001);
    const again = await loggedIn(server);
    const after = await open(server, await ticketOf(again));
    after.send({ op: 'ping' });
    await after.waitFor((message) => message.op === 'pong');
    after.close();
  });

  it('a hand edit of access_token in data/webui.json closes the sockets within 2 s', async () => {
    const http = await loggedIn(server);
    const a = await open(server, await ticketOf(http));
    const b = await open(server, await ticketOf(http));
    const file = readWebuiFile(server.dataDir);
    writeFileSync(webuiFilePath(server.dataDir), JSON.stringify({ ...file, access_token: 'Edited-By-Hand_2024!x' }, null, 2));
    const started = Date.now();
    const [closeA, closeB] = await Promise.all([a.closedWithin(2_500), b.closedWithin(2_500)]);
    expect(closeA.code).toBe(4001);
    expect(closeB.code).toBe(4001);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The new token works, and its sockets are unaffected by the old one's revocation.
    const fresh = await loggedIn(server);
    (await open(server, await ticketOf(fresh))).close();
  });
});

describe('caps (docs/decisions/0014-bounded-memory.md)', () => {
  it('at most 256 sockets per session token: the 257th handshake is refused', async () => {
    const server = await startServer();
    const http = await loggedIn(server);
    const clients: WsClient[] = [];
    try {
      for (let i = 0; i < 256; i += 16) {
        const tickets = await Promise.all(Array.from({ length: 16 }, () => ticketOf(http)));
        clients.push(...(await Promise.all(tickets.map((ticket) => open(server, ticket)))));
      }
      expect(clients).toHaveLength(256);
      expect(await refusedStatus(server, await ticketOf(http))).toBe(429);
      // One closes: there is room again.
      const leaving = clients.pop() as WsClient;
      leaving.socket.close(1000);
      await leaving.closedWithin(2_000);
      // The server drops it when its side of the TCP connection closes, a moment after the client's: until then a newcomer is still
      // refused.
      let handshake = await connect(server, await ticketOf(http));
      while (!handshake.opened) {
        expect(handshake.status).toBe(429);
        handshake = await connect(server, await ticketOf(http));
      }
      await handshake.client.waitFor((message) => message['event'] === 'ready', 3_000, 'system/ready');
      handshake.client.close();
    } finally {
      for (const client of clients) client.close();
    }
  });
});

describe('shutdown', () => {
  it('SIGTERM closes open sockets with 1001, logs "shutting down", and exits 0 within 5 s', async () => {
    const server = await startServer({ config: DEBUG_CONFIG });
    const http = await loggedIn(server);
    const a = await open(server, await ticketOf(http));
    const b = await open(server, await ticketOf(http));
    await a.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 0 } });
    const started = Date.now();
    const exited = server.stop('SIGTERM');
    const [closeA, closeB] = await Promise.all([a.closedWithin(5_000), b.closedWithin(5_000)]);
    expect(closeA.code).toBe(1001);
    expect(closeB.code).toBe(1001);
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.logs().some((line) => line.msg === 'shutting down')).toBe(true);
    // The subscriber saw the shutdown line live before the close.
    expect(entriesOf(a).map((entry) => entry.message)).toContain('shutting down');
    // No longer accepting.
    await expect(connect(server, 'A'.repeat(43))).rejects.toThrow(/ECONNREFUSED/);
  });

  // A live line is data.entry: the dashboard appends nothing else (docs/dashboard.md §4).
  const entriesOf = (client: WsClient): LogEntry[] =>
    client.events('logs', 'entry').map((event) => (event['data'] as { entry: LogEntry }).entry);
});
