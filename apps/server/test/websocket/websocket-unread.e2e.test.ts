import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAND_IN_TOKEN, startGateway, type Gateway } from '../harness/proxies/gateway.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type StandInUpstream } from '../harness/stand-in-upstream.js';
import { readWebuiFile } from '../harness/webui-file.js';
import { createKey, flood, metricValue, openUnreadSocket, SUBSCRIBE_SECURITY, ticketFor } from '../harness/clients/unread-socket.js';
import { connect, type WsClient } from '../harness/clients/ws-client.js';

/**
 * Clients that never read (issue 42, item 2), against the real server on Node, Bun and Deno: a read key's socket that
 * floods subscribes is closed with 1008 once far past the subscribe rate; a socket that does not read the bot's events
 * relayed to it is closed with 1013 once it holds more than 1 MiB unsent, and its upstream socket goes with it. Both are
 * counted in the metrics, and everyone else is served meanwhile. The timing and memory of the full attack are the
 * soak's (apps/server/soak, websocket-unread.soak.test.ts).
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const RUNTIME = process.env['WEBUI_E2E_RUNTIME'] ?? 'node';
const CAP_CLOSE = 'a WebSocket was closed at its cap';
/** Well past the subscribe rate's burst (16) and overdraft (32). */
const FLOOD_FRAMES = 2_000;

/** A logged-in operator of `server` (its access token's session). */
async function operatorOf(server: ServerProcess): Promise<HttpClient> {
  const operator = new HttpClient(server.baseUrl);
  const login = await operator.post('/auth/verify', { body: { token: readWebuiFile(server.dataDir).access_token } });
  expect(login.json).toMatchObject({ valid: true });
  return operator;
}

/** Reads again what the paused socket was sent, up to its close frame. */
async function closeSeenBy(client: WsClient): Promise<{ code: number; reason: string }> {
  client.socket.resume();
  return client.closedWithin(15_000);
}

/** Another client of the same server still subscribes and gets its snapshot, and /health answers. */
async function othersServed(server: ServerProcess, operator: HttpClient): Promise<void> {
  const handshake = await connect(server, await ticketFor(operator));
  if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
  const other = handshake.client;
  const answer = await other.request({ op: 'subscribe', domain: 'security', topic: 'main' });
  expect(answer).toMatchObject({ ok: true });
  await other.waitFor((message) => message['domain'] === 'security' && message['event'] === 'snapshot', 5_000, 'the snapshot');
  other.close();
  expect((await new HttpClient(server.baseUrl).get('/health')).status).toBe(200);
}

describe('a read key flooding subscribes without reading', () => {
  let server: ServerProcess;
  let operator: HttpClient;

  beforeAll(async () => {
    server = await startServer();
    operator = await operatorOf(server);
  });

  it('is answered rate_limited, then closed with 1008 "too many requests", counted; others are served', async () => {
    const key = await createKey(operator, 'flooder', 'read');
    const client = await openUnreadSocket(server, await ticketFor(new HttpClient(server.baseUrl), key));
    await flood(client, SUBSCRIBE_SECURITY, FLOOD_FRAMES);
    const closed = await server.waitForLog((line) => line.msg === CAP_CLOSE, 15_000);
    expect(closed).toMatchObject({ level: 40, code: 1008, reason: 'too many requests' });
    const seen = await closeSeenBy(client);
    const metrics = (await operator.get('/metrics')).text;
    expect(metricValue(metrics, 'webui_websocket_closed_total{reason="request_flood"}')).toBe(1);
    expect(metricValue(metrics, 'webui_websocket_closed_total{reason="send_buffer_full"}')).toBe(0);
    // 16 at once, then refused until 32 past the rate (a few more for what 4 a second refilled meanwhile).
    const refusals = metricValue(metrics, 'webui_websocket_rate_limited_total');
    expect(refusals).toBeGreaterThanOrEqual(31);
    expect(refusals).toBeLessThan(45);
    // Deno cuts the connection when a frame comes after its close frame: a client still sending loses what was on its way (1006).
    if (RUNTIME !== 'deno' || seen.code !== 1006) {
      expect(seen).toEqual({ code: 1008, reason: 'too many requests' });
      const refused = client.messages.filter((message) => (message['error'] as { code?: string } | undefined)?.code === 'rate_limited');
      expect(refused).toHaveLength(refusals);
      expect(client.events('security', 'snapshot').length).toBeGreaterThanOrEqual(16);
      expect(client.events('security', 'snapshot').length).toBeLessThan(24);
    }
    await othersServed(server, operator);
  });
});

describe("a client that does not read the bot's events relayed to it", () => {
  let upstream: StandInUpstream;
  let gateway: Gateway;
  /** The gateway's operator under the API prefix. */
  let api: HttpClient;

  beforeAll(async () => {
    upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    gateway = await startGateway({ url: upstream.url });
    api = new HttpClient(gateway.server.baseUrl);
    api.setCookie('bot_session', gateway.operator.cookie('bot_session') ?? '');
  });

  it('is closed with 1013 once it holds more than 1 MiB unsent, counted; its upstream socket closes; others are served', async () => {
    const client = await openUnreadSocket(gateway.server, await ticketFor(api));
    client.send({ op: 'subscribe', id: 'm', domain: 'maisaka_monitor', topic: 'main', data: {} });
    await upstream.waitFor(() => upstream.openSockets === 1, 5_000, 'the upstream socket');
    await upstream.waitFor(
      () => upstream.channelMessages.some((message) => (message.message as { op?: string } | undefined)?.op === 'subscribe'),
      5_000,
      'the subscribe relayed',
    );
    // 16 KiB events until the server gives up on the client: the kernel's buffers take some MB first, then the cap's 1 MiB.
    const text = 'x'.repeat(16 * 1024);
    let sentBytes = 0;
    const capped = () => gateway.server.logs().some((line) => line.msg === CAP_CLOSE);
    while (!capped() && sentBytes < 64 * 1024 * 1024) {
      for (let i = 0; i < 64; i++) upstream.emitMonitor('stage.status', { text }, { transient: true });
      sentBytes += 64 * text.length;
      // The stand-in's writes and the server's log lines come in meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const closed = await gateway.server.waitForLog((line) => line.msg === CAP_CLOSE, 15_000);
    expect(closed).toMatchObject({ code: 1013, reason: 'send buffer full: the client does not read' });
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, 'the upstream socket closed');
    expect(await closeSeenBy(client)).toEqual({ code: 1013, reason: 'send buffer full: the client does not read' });

    const metrics = (await api.get('/metrics')).text;
    expect(metricValue(metrics, 'webui_websocket_closed_total{reason="send_buffer_full"}')).toBe(1);
    await othersServed(gateway.server, api);
  });
});
