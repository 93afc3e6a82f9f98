import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, defaultLauncher, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * The unified WebSocket channel held to what the existing dashboard does and reads, as recorded in
 * docs/dashboard.md §1 (ws-token), §3 (unified WS), §4 (logs) and §5
 * (plugin_progress): its messages, byte for byte in shape, and every field it reads. The server
 * writes no trace line of its own, so trace -> DEBUG is held in-process (websocket-heartbeat.test.ts).
 */

afterAll(cleanupServers);

type Message = Record<string, unknown> & { op?: unknown };

/** What the dashboard's LogEntry reader needs (§4): string fields, a level its filter knows. */
const DASHBOARD_ENTRY = {
  id: expect.any(String),
  timestamp: expect.any(String),
  level: expect.stringMatching(/^(DEBUG|INFO|WARNING|ERROR|CRITICAL)$/),
  module: expect.any(String),
  message: expect.any(String),
};

/** The dashboard's own ids: `ws-<epoch ms>-<counter>` (§3). */
let counter = 0;
const dashboardId = () => `ws-${Date.now()}-${++counter}`;

/** A socket opened as the dashboard opens it: GET ws-token (cookie), then ?token=<URL-encoded ticket>. */
async function openLikeTheDashboard(server: ServerProcess, http: HttpClient): Promise<{ socket: WebSocket; messages: Message[] }> {
  // The dashboard sends Content-Type: application/json on every request, GETs included (§0).
  const ticket = await http.get('/ws-token', { headers: { 'content-type': 'application/json' } });
  expect(ticket.json).toMatchObject({ success: true, token: expect.any(String) });
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api/webui/ws?token=${encodeURIComponent(String(ticket.json?.['token']))}`);
  const messages: Message[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  await eventually(() => messages.length > 0, 3_000, 'system/ready');
  return { socket, messages };
}

function responseTo(messages: Message[], id: string): Message | undefined {
  return messages.find((message) => message.op === 'response' && message['id'] === id);
}

describe(`the unified channel as the dashboard uses it (${defaultLauncher.name})`, () => {
  let server: ServerProcess;
  let http: HttpClient;

  beforeAll(async () => {
    server = await startServer({ args: ['--host', '127.0.0.1'] });
    http = new HttpClient(server.baseUrl);
    const login = await http.post('/auth/verify', { body: { token: readWebuiFile(server.dataDir).access_token } });
    expect(login.json).toMatchObject({ valid: true });
  });

  it('ping: {op:"ping"} without an id is answered {op:"pong", ts:<number>}', async () => {
    const { socket, messages } = await openLikeTheDashboard(server, http);
    socket.send(JSON.stringify({ op: 'ping' }));
    await eventually(() => messages.some((message) => message.op === 'pong'), 3_000, 'pong');
    expect(messages.find((message) => message.op === 'pong')).toEqual({ op: 'pong', ts: expect.any(Number) });
    socket.terminate();
  });

  it(
    'logs/main subscribed as the dashboard does, twice on one socket (a reconnect): both ACKed with the exact string id and boolean ok, ' +
      'each followed by a snapshot',
    async () => {
      const { socket, messages } = await openLikeTheDashboard(server, http);
      const ids = [dashboardId(), dashboardId()];
      for (const id of ids) socket.send(JSON.stringify({ op: 'subscribe', id, domain: 'logs', topic: 'main', data: { replay: 100 } }));
      // Each acknowledgement and its snapshot are two frames: wait for the second snapshot too, not only the responses.
      const snapshots = () => messages.filter((message) => message['domain'] === 'logs' && message['event'] === 'snapshot').length;
      await eventually(() => ids.every((id) => responseTo(messages, id)) && snapshots() === 2, 3_000, 'both responses and snapshots');
      for (const id of ids) {
        const response = responseTo(messages, id) as Message;
        expect(response['ok']).toBe(true);
        const snapshot = messages[messages.indexOf(response) + 1];
        expect(snapshot).toMatchObject({ op: 'event', domain: 'logs', event: 'snapshot', data: { entries: expect.any(Array) } });
        const entries = (snapshot?.['data'] as { entries: unknown[] }).entries;
        expect(entries.length).toBeGreaterThan(0);
        for (const entry of entries) expect(entry).toEqual(DASHBOARD_ENTRY);
      }
      socket.terminate();
    },
  );

  it(
    'a line logged while subscribed arrives as event "entry" with data.entry, after the snapshot, with a dashboard level and a string ' +
      'id; the next snapshot has it under the same id',
    async () => {
      const { socket, messages } = await openLikeTheDashboard(server, http);
      const id = dashboardId();
      socket.send(JSON.stringify({ op: 'subscribe', id, domain: 'logs', topic: 'main', data: { replay: 100 } }));
      await eventually(() => messages.some((message) => message['event'] === 'snapshot'), 3_000, 'snapshot');
      // A failed login is always logged.
      expect(
        (await new HttpClient(server.baseUrl).post('/auth/verify', { body: { token: 'not-the-token' }, cookie: null })).json,
      ).toMatchObject({ valid: false });
      const isFailure = (message: Message) =>
        message['event'] === 'entry' && (message['data'] as { entry?: { message?: string } }).entry?.message === 'login failed';
      await eventually(() => messages.some(isFailure), 3_000, 'the failed login as a live entry');
      const live = messages.find(isFailure) as Message;
      expect(live).toEqual({
        op: 'event',
        domain: 'logs',
        topic: 'main',
        event: 'entry',
        data: { entry: { ...DASHBOARD_ENTRY, level: 'INFO', message: 'login failed' } },
      });
      const snapshotAt = messages.findIndex((message) => message['event'] === 'snapshot');
      expect(messages.indexOf(live)).toBeGreaterThan(snapshotAt);
      // The dashboard re-subscribes after a reconnect and de-duplicates by id: the same line, under the same id, in the next snapshot.
      const again = dashboardId();
      socket.send(JSON.stringify({ op: 'subscribe', id: again, domain: 'logs', topic: 'main', data: { replay: 100 } }));
      await eventually(() => messages.filter((message) => message['event'] === 'snapshot').length === 2, 3_000, 'the second snapshot');
      const second = messages.filter((message) => message['event'] === 'snapshot')[1] as Message;
      expect(messages.indexOf(second)).toBe(messages.indexOf(responseTo(messages, again) as Message) + 1);
      const liveEntry = (live['data'] as { entry: { id: string } }).entry;
      expect((second['data'] as { entries: Array<{ id: string }> }).entries.filter((entry) => entry.id === liveEntry.id)).toEqual([
        liveEntry,
      ]);
      // Every event carries an object as data (an event without one is dropped by the dashboard).
      for (const message of messages.filter((m) => m.op === 'event'))
        expect(typeof message['data'] === 'object' && message['data'] !== null).toBe(true);
      socket.terminate();
    },
  );

  it('plugin_progress/main subscribed with data {} answers a snapshot whose data.progress is one idle progress object', async () => {
    const { socket, messages } = await openLikeTheDashboard(server, http);
    const id = dashboardId();
    socket.send(JSON.stringify({ op: 'subscribe', id, domain: 'plugin_progress', topic: 'main', data: {} }));
    await eventually(
      () => messages.some((message) => message['domain'] === 'plugin_progress' && message.op === 'event'),
      3_000,
      'progress snapshot',
    );
    expect(responseTo(messages, id)).toEqual({ op: 'response', id, ok: true, data: { domain: 'plugin_progress', topic: 'main' } });
    const event = messages.find((message) => message['domain'] === 'plugin_progress' && message.op === 'event') as Message;
    expect(event['data']).toEqual({
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
    });
    socket.terminate();
  });

  it(
    'unsubscribe (sent with data {}) and an unknown domain answer with the exact id: ok true, then ok false with ' + 'error.message',
    async () => {
      const { socket, messages } = await openLikeTheDashboard(server, http);
      const [subscribe, unsubscribe, unknown] = [dashboardId(), dashboardId(), dashboardId()];
      socket.send(JSON.stringify({ op: 'subscribe', id: subscribe, domain: 'logs', topic: 'main', data: { replay: 0 } }));
      socket.send(JSON.stringify({ op: 'unsubscribe', id: unsubscribe, domain: 'logs', topic: 'main', data: {} }));
      socket.send(JSON.stringify({ op: 'subscribe', id: unknown, domain: 'maisaka_monitor', topic: 'main', data: {} }));
      await eventually(() => [subscribe, unsubscribe, unknown].every((id) => responseTo(messages, id)), 3_000, 'three responses');
      expect(responseTo(messages, unsubscribe)).toMatchObject({ ok: true });
      expect(responseTo(messages, unknown)).toEqual({
        op: 'response',
        id: unknown,
        ok: false,
        error: { code: expect.any(String), message: expect.any(String) },
      });
      socket.terminate();
    },
  );

  it('ws-token without a session: 200 with success false (the dashboard then opens no socket), never a 401', async () => {
    const anonymous = await new HttpClient(server.baseUrl).get('/ws-token', {
      headers: { 'content-type': 'application/json' },
      cookie: null,
    });
    expect(anonymous.status).toBe(200);
    expect(anonymous.json).toMatchObject({ success: false, message: expect.any(String) });
  });
});
