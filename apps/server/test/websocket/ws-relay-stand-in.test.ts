import { upstreamChannelRelay, type UpstreamSocket } from '@webui/gateway';
import { WsHub, type LogEntry, type LogSource } from '@webui/http-hono';
import type { WSContext, WSEvents } from 'hono/ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventually } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type StandInUpstream } from '../harness/stand-in-upstream.js';

/**
 * The hub's relay over real sockets to the stand-in of the bot's backend (issue 33): the ticket through fetch with the
 * configured cookie, the channel through the `ws` client, the original's envelopes both ways. The hub's own client
 * sockets are in memory; the runtimes' wiring is proved by the end-to-end tests.
 */

const TOKEN = 'Upstream-Token_2026x';

type Envelope = Record<string, unknown> & { op: string };

class ClientSocket {
  readyState = 1;
  readonly messages: Envelope[] = [];
  closed: { code: number; reason: string } | null = null;
  send(data: string): void {
    this.messages.push(JSON.parse(data) as Envelope);
  }
  close(code: number, reason: string): void {
    this.closed = { code, reason };
    this.readyState = 3;
  }
  async waitFor(predicate: (message: Envelope) => boolean, what: string): Promise<Envelope> {
    let found: Envelope | undefined;
    await eventually(() => (found = this.messages.find(predicate)) !== undefined, 5_000, what);
    return found as Envelope;
  }
}

class OurLogs implements LogSource {
  readonly entries: LogEntry[] = [];
  private readonly listeners = new Set<(entry: LogEntry) => void>();
  log(message: string): void {
    const entry: LogEntry = {
      id: String(this.entries.length + 1),
      timestamp: new Date().toISOString(),
      level: 'INFO',
      module: 'http',
      message,
    };
    this.entries.push(entry);
    for (const listener of this.listeners) listener(entry);
  }
  recent(count: number): LogEntry[] {
    return count <= 0 ? [] : this.entries.slice(-count);
  }
  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

let upstream: StandInUpstream;
beforeEach(async () => {
  upstream = await startStandInUpstream({ token: TOKEN });
});
afterEach(() => stopAllStandInUpstreams());

function makeHub() {
  const logs = new OurLogs();
  const hub = new WsHub({
    logs,
    logger: quiet,
    now: () => Date.now(),
    newConnectionId: () => 'conn',
    relay: upstreamChannelRelay({
      logger: quiet,
      // Long enough that the bot's snapshot always makes it on a loaded machine: the test is about content, not the wait.
      waitMs: 20_000,
      channel: {
        upstream: {
          origin: upstream.url,
          paths: ['/api/webui'],
          publicPaths: [],
          headers: { Cookie: `maibot_session=${TOKEN}` },
          timeoutMs: 10_000,
          transport: (request) => fetch(request),
        },
        openSocket: (url, headers) => new WebSocket(url, { headers }) as unknown as UpstreamSocket,
      },
    }),
  });
  const open = (session = 'session-a') => {
    const socket = new ClientSocket();
    const events: WSEvents = hub.events({ kind: 'token', session, status: { tokenSource: 'configured', requiresCustomToken: false } });
    const ctx = socket as unknown as WSContext;
    events.onOpen?.(new Event('open'), ctx);
    const send = (message: unknown) => events.onMessage?.(new MessageEvent('message', { data: JSON.stringify(message) }), ctx);
    const disconnect = () => {
      socket.readyState = 3;
      events.onClose?.(new Event('close') as CloseEvent, ctx);
    };
    return { socket, send, disconnect };
  };
  return { hub, logs, open };
}

describe('WsHub relay against the stand-in upstream, over real sockets', () => {
  it('a chat session.open call and maisaka_monitor events reach the client; the ticket was asked with the configured cookie', async () => {
    const { open } = makeHub();
    const client = open();
    const call = { op: 'call', id: 'ws-1-1', domain: 'chat', method: 'session.open', session: 'tab-1', data: { user_name: 'op' } };
    client.send(call);
    const answer = await client.socket.waitFor((message) => message['id'] === 'ws-1-1', 'the chat answer');
    expect(answer).toMatchObject({ op: 'response', ok: true });
    const [ticketRequest] = upstream.requestsTo('/api/webui/ws-token');
    expect(ticketRequest).toBeDefined();
    expect(JSON.stringify(ticketRequest)).toContain(`maibot_session=${TOKEN}`);
    expect(upstream.channelMessages.some((message) => JSON.stringify(message).includes('ws-1-1'))).toBe(true);

    client.send({ op: 'subscribe', id: 'ws-1-2', domain: 'maisaka_monitor', topic: 'main', data: {} });
    await client.socket.waitFor((message) => message['id'] === 'ws-1-2' && message['ok'] === true, 'the monitor answer');
    upstream.emitMonitor('planner.thinking', { text: 'hmm' });
    const event = await client.socket.waitFor(
      (message) => message['domain'] === 'maisaka_monitor' && message['event'] === 'planner.thinking',
      'the monitor event',
    );
    expect(event['data']).toMatchObject({ text: 'hmm' });
    // The upstream's own ready never reaches the client: the only ready it saw is ours.
    expect(client.socket.messages.filter((message) => message['event'] === 'ready')).toEqual([
      { op: 'event', domain: 'system', event: 'ready', data: { connection_id: 'conn', timestamp: expect.any(Number) } },
    ]);
    expect(upstream.openSockets).toBe(1);
  });

  it("logs/main: one snapshot of the bot's seeded lines and ours by time, then live lines from both", async () => {
    const { open, logs } = makeHub();
    logs.log('ours first');
    const client = open();
    client.send({ op: 'subscribe', id: 'l1', domain: 'logs', topic: 'main', data: { replay: 100 } });
    const snapshot = await client.socket.waitFor((message) => message['event'] === 'snapshot', 'the merged snapshot');
    const entries = (snapshot['data'] as { entries: Array<Record<string, unknown>> }).entries;
    // The stand-in seeds three bot lines from minutes ago: they come before our line of just now.
    expect(entries.map((entry) => String(entry['id']).split('-')[0])).toEqual(['bot', 'bot', 'bot', 'webui']);
    expect(entries.map((entry) => entry['message'])).toEqual(['MaiBot started', 'no model configured', 'channel ready', 'ours first']);
    expect(entries.map((entry) => entry['module'])).toEqual(['main', 'config', 'webui.unified_ws', 'gateway.http']);
    expect(entries[1]).toMatchObject({ level: 'WARNING', moduleColor: '#ffaa00' });

    upstream.emitLog({ level: 'warn', module: 'chat', message: 'bot live' });
    logs.log('ours live');
    const live = async (message: string) =>
      (
        await client.socket.waitFor(
          (envelope) => (envelope['data'] as { entry?: { message?: string } })?.entry?.message === message,
          message,
        )
      )['data'];
    expect(await live('bot live')).toEqual({
      entry: expect.objectContaining({ level: 'WARNING', module: 'chat', id: expect.stringMatching(/^bot-/) }),
    });
    expect(await live('ours live')).toEqual({ entry: expect.objectContaining({ module: 'gateway.http', id: 'webui-2' }) });
  });

  it('4001 (revokeSession) and a client closing close the upstream socket', async () => {
    const { open, hub } = makeHub();
    const revoked = open('old-token');
    const leaving = open('other');
    for (const client of [revoked, leaving]) {
      client.send({ op: 'call', id: 'c', domain: 'chat', method: 'session.open', session: 's', data: {} });
      await client.socket.waitFor((message) => message['id'] === 'c', 'the chat answer');
    }
    expect(upstream.openSockets).toBe(2);
    hub.revokeSession('old-token');
    expect(revoked.socket.closed?.code).toBe(4001);
    await upstream.waitFor(() => upstream.openSockets === 1, 5_000, "the revoked client's upstream socket closed");
    leaving.disconnect();
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, "the leaving client's upstream socket closed");
  });

  it('the upstream closing its sockets: the relay reconnects with a fresh ticket and subscribes again', async () => {
    const { open } = makeHub();
    const client = open();
    client.send({ op: 'subscribe', id: 'm1', domain: 'maisaka_monitor', topic: 'main', data: {} });
    await client.socket.waitFor((message) => message['id'] === 'm1', 'the monitor answer');
    upstream.closeSockets(1001);
    // The first retry comes after 1 s.
    await upstream.waitFor(() => upstream.openSockets === 1 && upstream.connections.length === 2, 10_000, 'a second upstream socket');
    await upstream.waitFor(
      () => upstream.channelMessages.filter((message) => JSON.stringify(message).includes('"m1"')).length === 2,
      5_000,
      'the re-subscription',
    );
    expect(upstream.requestsTo('/api/webui/ws-token')).toHaveLength(2);
    upstream.emitMonitor('planner.after', { n: 2 });
    await client.socket.waitFor((message) => message['event'] === 'planner.after', 'the monitor event after the reconnect');
    expect(client.socket.messages.filter((message) => message['id'] === 'm1')).toHaveLength(1);
    expect(client.socket.closed).toBeNull();
  });
});
