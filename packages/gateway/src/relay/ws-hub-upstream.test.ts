import type { WSContext, WSEvents } from 'hono/ws';
import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '@webui/http-hono/testing';
import type { Principal } from '@webui/core';
import { FakeClock, FakeLogs, FakeSocket, keyPrincipal, settle, tokenPrincipal } from '@webui/http-hono/testing';
import { FakeUpstream } from '../testing/fake-upstream.js';
import type { ServerEnvelope } from '@webui/http-hono';
import type { MergedLogEntry } from './merged-log-entry.js';
import { PluginProgressBoard } from '@webui/http-hono';
import { PluginProgressDomain } from '@webui/http-hono';
import { CLOSE_TOKEN_CHANGED, WsHub, type WsHubOptions } from '@webui/http-hono';
import { upstreamChannelRelay } from './upstream-link.js';

const NOW = 1_700_000_123_456;

/** A hub with the fake bot behind it (or none), a fake clock for its waits, and sockets opened as the runtime would. */
function makeHub(options: Partial<WsHubOptions> & { withUpstream?: boolean; upstreamLogsWaitMs?: number } = {}) {
  const { withUpstream = true, upstreamLogsWaitMs, ...hubOptions } = options;
  const logs = new FakeLogs();
  const progress = new PluginProgressBoard();
  const logger = new RecordingLogger();
  const clock = new FakeClock();
  const upstream = new FakeUpstream();
  let counter = 0;
  const hub = new WsHub({
    logs,
    // As the assembly does: with an upstream, plugin_progress is the bot's.
    domains: withUpstream ? [] : [new PluginProgressDomain(progress)],
    logger,
    now: () => NOW,
    newConnectionId: () => `conn-${++counter}`,
    ...(withUpstream
      ? {
          relay: upstreamChannelRelay({
            channel: { upstream: upstream.options, openSocket: upstream.openSocket },
            logger,
            timers: clock,
            ...(upstreamLogsWaitMs === undefined ? {} : { waitMs: upstreamLogsWaitMs }),
          }),
        }
      : {}),
    ...hubOptions,
  });

  const open = (session = 'session-a', principal: Principal = tokenPrincipal(session)) => {
    const socket = new FakeSocket();
    const events: WSEvents = hub.events(principal);
    const ctx = socket as unknown as WSContext;
    events.onOpen?.(new Event('open'), ctx);
    socket.take();
    const send = (message: unknown) =>
      events.onMessage?.(new MessageEvent('message', { data: typeof message === 'string' ? message : JSON.stringify(message) }), ctx);
    const disconnect = () => {
      socket.readyState = 3;
      events.onClose?.(new Event('close') as CloseEvent, ctx);
    };
    const fail = () => events.onError?.(new Event('error'), ctx);
    return { socket, send, disconnect, fail };
  };
  return { hub, logs, progress, logger, clock, upstream, open };
}

const chatCall = (id: string) => ({ op: 'call', id, domain: 'chat', method: 'open', session: 's1', data: { user_name: 'op' } });
const subscribe = (id: string, domain: string, data?: unknown) => ({
  op: 'subscribe',
  id,
  domain,
  topic: 'main',
  ...(data ? { data } : {}),
});

type Event = Extract<ServerEnvelope, { op: 'event' }>;
const entriesOf = (envelope: ServerEnvelope | undefined): MergedLogEntry[] =>
  ((envelope as Event).data as { entries: MergedLogEntry[] }).entries;
const entryOf = (envelope: ServerEnvelope | undefined): MergedLogEntry => ((envelope as Event).data as { entry: MergedLogEntry }).entry;

describe('WsHub without an upstream: call is a known op, refused', () => {
  it.each([
    ['chat', 'unknown_domain'],
    ['maisaka_monitor', 'unknown_domain'],
    ['logs', 'unknown_method'],
    ['plugin_progress', 'unknown_method'],
  ])('a call on %s -> ok:false %s, the socket stays', (domain, code) => {
    const { open, hub } = makeHub({ withUpstream: false });
    const client = open();
    client.send({ ...chatCall('c1'), domain });
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'c1', ok: false, error: { code, message: expect.any(String) } }]);
    expect(client.socket.closed).toBeNull();
    expect(hub.size).toBe(1);
  });

  it('a call without a method is an invalid call message', () => {
    const { open } = makeHub({ withUpstream: false });
    const client = open();
    client.send({ op: 'call', id: 'c2', domain: 'chat' });
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'c2', ok: false, error: { code: 'invalid_message', message: expect.any(String) } },
    ]);
  });
});

describe('WsHub with an upstream: relaying the bot domains', () => {
  it('a chat call opens one upstream socket with a fresh ticket and is answered by its id; the text goes unchanged', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    expect(upstream.ticketRequests).toEqual([]);
    const text = JSON.stringify(chatCall('ws-1700000000000-1'));
    client.send(text);
    await settle();

    const [ticketRequest] = upstream.ticketRequests;
    expect(ticketRequest?.method).toBe('GET');
    expect(ticketRequest?.url).toBe('http://127.0.0.1:8002/api/webui/ws-token');
    expect(ticketRequest?.headers.get('cookie')).toBe('maibot_session=upstream-secret');
    expect(upstream.sockets).toHaveLength(1);
    expect(upstream.last.url).toBe(`ws://127.0.0.1:8002/api/webui/ws?token=${encodeURIComponent('ticket 1/+=')}`);
    expect(upstream.last.headers).toEqual({
      cookie: 'maibot_session=upstream-secret',
      'x-webui-principal': 'session',
      'x-webui-scope': 'admin',
    });
    expect(upstream.last.texts).toEqual([text]);
    // The upstream's own system/ready is not the client's: only the answer passes, exactly as the upstream sent it.
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'ws-1700000000000-1', ok: true, data: { method: 'open', session: 's1' } }]);
    expect(client.socket.texts.at(-1)).toBe(
      JSON.stringify({ op: 'response', id: 'ws-1700000000000-1', ok: true, data: { method: 'open', session: 's1' } }),
    );

    client.send(chatCall('ws-2'));
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'ws-2', ok: true, data: { method: 'open', session: 's1' } }]);
    expect(upstream.sockets).toHaveLength(1);
    expect(upstream.ticketRequests).toHaveLength(1);
  });

  it('each client socket gets its own upstream socket', async () => {
    const { open, upstream } = makeHub();
    const first = open();
    const second = open();
    first.send(chatCall('a'));
    second.send(chatCall('b'));
    await settle();
    expect(upstream.sockets).toHaveLength(2);
    expect(first.socket.take().map((envelope) => (envelope as { id: unknown }).id)).toEqual(['a']);
    expect(second.socket.take().map((envelope) => (envelope as { id: unknown }).id)).toEqual(['b']);
  });

  it('pings are answered by the hub and never relayed; the upstream pongs and system events never reach the client', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send(chatCall('c'));
    await settle();
    client.socket.take();
    client.send({ op: 'ping' });
    expect(client.socket.take()).toEqual([{ op: 'pong', ts: NOW }]);
    upstream.last.deliver({ op: 'pong', ts: 5 });
    upstream.last.deliver({ op: 'event', domain: 'system', event: 'ready', data: {} });
    upstream.last.deliver({ op: 'event', domain: 'security', topic: 'main', event: 'login_failed', data: {} });
    upstream.last.deliver('not json');
    upstream.last.deliver([1, 2]);
    expect(client.socket.take()).toEqual([]);
    expect(upstream.last.sentOf('ping')).toEqual([]);
  });

  it('maisaka_monitor: the subscribe is answered by the upstream and its events reach the client unchanged', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send(subscribe('m1', 'maisaka_monitor', { replay_limit: 10 }));
    await settle();
    expect(upstream.last.sentOf('subscribe', 'maisaka_monitor')).toEqual([subscribe('m1', 'maisaka_monitor', { replay_limit: 10 })]);
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'm1', ok: true, data: { domain: 'maisaka_monitor', topic: 'main' } }]);
    const event = { op: 'event', domain: 'maisaka_monitor', topic: 'main', event: 'stage.snapshot', data: { entries: [], timestamp: 1.5 } };
    upstream.last.deliver(event);
    expect(client.socket.texts.at(-1)).toBe(JSON.stringify(event));
    upstream.last.deliver({ op: 'event', domain: 'chat', session: 's1', event: 'message', data: { type: 'message', text: 'hi' } });
    expect(client.socket.take()).toEqual([
      event,
      { op: 'event', domain: 'chat', session: 's1', event: 'message', data: { type: 'message', text: 'hi' } },
    ]);
  });

  it("plugin_progress is the bot's: relayed, and our own board no longer answers it", async () => {
    const { open, upstream, progress } = makeHub();
    const client = open();
    client.send(subscribe('p1', 'plugin_progress'));
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'p1', ok: true, data: { domain: 'plugin_progress', topic: 'main' } },
      { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'snapshot', data: { progress: { stage: 'idle' } } },
    ]);
    progress.publish({ ...progress.snapshot(), stage: 'loading' });
    expect(client.socket.take()).toEqual([]);
    upstream.broadcast('plugin_progress', 'main', 'update', { progress: { stage: 'loading' } });
    expect(client.socket.take()).toEqual([
      { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'update', data: { progress: { stage: 'loading' } } },
    ]);
  });

  it("an unknown domain is relayed too, and the upstream's refusal reaches the client", async () => {
    const { open } = makeHub();
    const client = open();
    client.send(subscribe('w1', 'weather'));
    client.send({ op: 'call', id: 'w2', domain: 'memory', method: 'search', data: {} });
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'w1', ok: false, error: { code: 'unsupported', message: expect.any(String) } },
      { op: 'response', id: 'w2', ok: false, error: { code: 'unsupported', message: expect.any(String) } },
    ]);
  });

  it('the hub still serves security and system itself: a call on them is refused here, never relayed', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send({ op: 'call', id: 's1', domain: 'system', method: 'restart', data: {} });
    client.send(subscribe('s2', 'security'));
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 's1', ok: false, error: { code: 'unknown_method', message: expect.any(String) } },
      { op: 'response', id: 's2', ok: false, error: { code: 'unknown_topic', message: expect.any(String) } },
    ]);
    expect(upstream.sockets).toEqual([]);
  });

  it('messages sent while the upstream socket connects are queued and go out in order once it opens', async () => {
    const { open, upstream } = makeHub();
    upstream.autoOpen = false;
    const client = open();
    client.send(chatCall('q1'));
    client.send(subscribe('q2', 'maisaka_monitor'));
    client.send(chatCall('q3'));
    await settle();
    expect(upstream.last.frames).toEqual([]);
    expect(client.socket.take()).toEqual([]);
    upstream.last.open();
    expect(upstream.last.frames.map((frame) => frame['id'])).toEqual(['q1', 'q2', 'q3']);
    expect(client.socket.take().map((envelope) => (envelope as { id: unknown }).id)).toEqual(['q1', 'q2', 'q3']);
  });

  it('the queue is bounded: the 65th waiting message is refused with upstream_busy', async () => {
    const { open, upstream } = makeHub();
    upstream.autoOpen = false;
    const client = open();
    for (let i = 1; i <= 65; i++) client.send(chatCall(`q${i}`));
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'q65', ok: false, error: { code: 'upstream_busy', message: expect.any(String) } },
    ]);
    await settle();
    upstream.last.open();
    expect(upstream.last.frames).toHaveLength(64);
  });

  it('a bot that does not read: past 1 MiB unsent toward it, a message is refused with upstream_busy and not sent', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send(chatCall('b1'));
    await settle();
    expect(upstream.last.frames.map((frame) => frame['id'])).toEqual(['b1']);
    client.socket.take();
    upstream.last.bufferedAmount = 1024 * 1024 + 1;
    client.send(chatCall('b2'));
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'b2', ok: false, error: { code: 'upstream_busy', message: expect.any(String) } },
    ]);
    expect(upstream.last.frames.map((frame) => frame['id'])).toEqual(['b1']);
    upstream.last.bufferedAmount = 0;
    client.send(chatCall('b3'));
    expect(upstream.last.frames.map((frame) => frame['id'])).toEqual(['b1', 'b3']);
  });

  it('the upstream down -> ok:false upstream_unavailable, the socket stays open, and the next message tries again', async () => {
    const { open, upstream, hub, logger } = makeHub();
    upstream.ticket = 'down';
    const client = open();
    client.send(chatCall('d1'));
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'd1', ok: false, error: { code: 'upstream_unavailable', message: expect.any(String) } },
    ]);
    expect(client.socket.closed).toBeNull();
    expect(hub.size).toBe(1);
    expect(logger.at('warn')).toHaveLength(1);
    expect(logger.text()).not.toContain('upstream-secret');

    upstream.ticket = 'ok';
    client.send(chatCall('d2'));
    await settle();
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'd2', ok: true, data: { method: 'open', session: 's1' } }]);
    expect(upstream.ticketRequests).toHaveLength(2);
  });

  it.each([
    ['ws-token answering success:false', 'refused'],
    ['ws-token answering 401', 'unauthorized'],
  ] as const)('%s -> ok:false upstream_refused, no socket opened, one warn line without secrets', async (_name, ticket) => {
    const { open, upstream, logger } = makeHub();
    upstream.ticket = ticket;
    const client = open();
    client.send(chatCall('r1'));
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'r1', ok: false, error: { code: 'upstream_refused', message: expect.any(String) } },
    ]);
    expect(upstream.sockets).toEqual([]);
    expect(client.socket.closed).toBeNull();
    expect(logger.at('warn')).toHaveLength(1);
    expect(logger.text()).not.toContain('upstream-secret');
  });

  it('the upstream socket refusing the ticket with 4001 before it opens -> upstream_refused', async () => {
    const { open, upstream } = makeHub();
    upstream.autoOpen = false;
    const client = open();
    client.send(chatCall('t1'));
    await settle();
    upstream.last.drop(4001);
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 't1', ok: false, error: { code: 'upstream_refused', message: expect.any(String) } },
    ]);
  });

  it('a socket that never opens is given up after the connect bound (min(timeout, 10 s)): upstream_unavailable', async () => {
    const { open, upstream, clock } = makeHub();
    upstream.autoOpen = false;
    const client = open();
    client.send(chatCall('h1'));
    await settle();
    expect(clock.pending()).toEqual([10_000]);
    clock.advance(10_000);
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'h1', ok: false, error: { code: 'upstream_unavailable', message: expect.any(String) } },
    ]);
    expect(upstream.last.closed).not.toBeNull();
  });

  it('a message in flight when the upstream socket drops is answered upstream_unavailable', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send(chatCall('warm'));
    await settle();
    client.socket.take();
    upstream.answers = false;
    client.send(chatCall('lost'));
    upstream.last.drop();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'lost', ok: false, error: { code: 'upstream_unavailable', message: expect.any(String) } },
    ]);
    expect(client.socket.closed).toBeNull();
  });
});

describe('WsHub with an upstream: the scope rule of mounted domains holds for relayed ones (issue 42)', () => {
  const monitor = (id: string) => subscribe(id, 'maisaka_monitor');
  const ASSERTED = (request: { method: string; path: string }, identity: { principal: string; scope: string }) =>
    `signed ${identity.principal} ${identity.scope} ${request.method} ${request.path}`;

  it('a read key may subscribe, but its call is answered insufficient_scope and reaches nothing: no ticket, no socket', async () => {
    const { open, upstream } = makeHub();
    const reader = open('api-key viewer', keyPrincipal('viewer', 'read'));
    reader.send({ op: 'call', id: 1, domain: 'chat', method: 'message.send', data: { text: 'x' } });
    await settle();
    expect(reader.socket.take()).toEqual([
      {
        op: 'response',
        id: 1,
        ok: false,
        error: { code: 'insufficient_scope', message: 'A call on the "chat" domain needs the admin scope; this API key has read only.' },
      },
    ]);
    expect(upstream.ticketRequests).toEqual([]);
    expect(upstream.sockets).toEqual([]);

    reader.send(monitor('m1'));
    await settle();
    expect(reader.socket.take()).toEqual([{ op: 'response', id: 'm1', ok: true, data: { domain: 'maisaka_monitor', topic: 'main' } }]);
    // Its socket open, a call is still refused here: the upstream saw the subscribe only.
    reader.send(chatCall('c2'));
    reader.send({ ...chatCall('c3'), domain: 'plugin_progress', method: 'install' });
    const refusals = reader.socket.take().map((envelope) => envelope as { id: unknown; error?: { code: string } });
    expect(refusals.map(({ id, error }) => [id, error?.code])).toEqual([
      ['c2', 'insufficient_scope'],
      ['c3', 'insufficient_scope'],
    ]);
    expect(upstream.last.frames.map((frame) => frame['op'])).toEqual(['subscribe']);
    reader.send({ op: 'unsubscribe', id: 'u1', domain: 'maisaka_monitor', topic: 'main' });
    expect(reader.socket.take()).toEqual([{ op: 'response', id: 'u1', ok: true, data: { domain: 'maisaka_monitor', topic: 'main' } }]);
  });

  it('an admin key and the access token may call: relayed unchanged', async () => {
    const { open, upstream } = makeHub();
    const admin = open('api-key deploy', keyPrincipal('deploy', 'admin'));
    const session = open();
    admin.send(chatCall('a1'));
    session.send(chatCall('s1'));
    await settle();
    expect(admin.socket.take()).toEqual([{ op: 'response', id: 'a1', ok: true, data: { method: 'open', session: 's1' } }]);
    expect(session.socket.take()).toEqual([{ op: 'response', id: 's1', ok: true, data: { method: 'open', session: 's1' } }]);
    expect(upstream.sockets.map((socket) => socket.texts)).toEqual([[JSON.stringify(chatCall('a1'))], [JSON.stringify(chatCall('s1'))]]);
  });

  it("each upstream socket and its ticket's request carry the identity of the client it serves, and assertions for those requests", async () => {
    const { open, upstream } = makeHub();
    upstream.options.assertion = (identity, request) => ASSERTED(request, identity);
    open('api-key viewer', keyPrincipal('viewer', 'read')).send(monitor('m1'));
    open().send(chatCall('s1'));
    await settle();
    expect(upstream.sockets.map((socket) => socket.headers)).toEqual([
      {
        cookie: 'maibot_session=upstream-secret',
        'x-webui-principal': 'key:viewer',
        'x-webui-scope': 'read',
        'x-webui-assertion': 'signed key:viewer read GET /api/webui/ws',
      },
      {
        cookie: 'maibot_session=upstream-secret',
        'x-webui-principal': 'session',
        'x-webui-scope': 'admin',
        'x-webui-assertion': 'signed session admin GET /api/webui/ws',
      },
    ]);
    expect(upstream.ticketRequests.map((request) => request.headers.get('x-webui-assertion'))).toEqual([
      'signed key:viewer read GET /api/webui/ws-token',
      'signed session admin GET /api/webui/ws-token',
    ]);
    expect(upstream.ticketRequests.map((request) => request.headers.get('cookie'))).toEqual([
      'maibot_session=upstream-secret',
      'maibot_session=upstream-secret',
    ]);
  });

  it('a fresh assertion for every reconnect: the socket reopened after a drop asks the signer again', async () => {
    const { open, upstream, clock } = makeHub();
    let signed = 0;
    upstream.options.assertion = () => `signed ${++signed}`;
    open().send(monitor('m1'));
    await settle();
    upstream.last.drop();
    clock.advance(1_000);
    await settle();
    expect(upstream.sockets.map((socket) => socket.headers['x-webui-assertion'])).toEqual(['signed 2', 'signed 4']);
    expect(upstream.ticketRequests.map((request) => request.headers.get('x-webui-assertion'))).toEqual(['signed 1', 'signed 3']);
  });
});

describe('WsHub with an upstream: reconnecting', () => {
  it('a dropped upstream socket is reopened with back-off (1 s doubling to 30 s), a fresh ticket each time, subscribed again', async () => {
    const { open, upstream, clock } = makeHub();
    const client = open();
    client.send(subscribe('m1', 'maisaka_monitor', { replay_limit: 5 }));
    client.send(subscribe('p1', 'plugin_progress'));
    client.send(subscribe('p2', 'plugin_progress', { again: true }));
    await settle();
    client.socket.take();
    const first = upstream.last;

    upstream.ticket = 'down';
    first.drop();
    expect(client.socket.closed).toBeNull();
    const delays: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      const [delay] = clock.pending();
      delays.push(delay ?? -1);
      clock.advance(delay ?? 0);
      await settle();
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(upstream.ticketRequests).toHaveLength(1 + 7);
    expect(client.socket.take()).toEqual([]);

    upstream.ticket = 'ok';
    clock.advance(clock.pending()[0] ?? 0);
    await settle();
    const second = upstream.last;
    expect(second).not.toBe(first);
    expect(second.url).toContain(`token=${encodeURIComponent('ticket 2/+=')}`);
    // The last subscribe of each domain/topic, with the client's own ids; their answers are not the client's.
    expect(second.frames).toEqual([
      subscribe('m1', 'maisaka_monitor', { replay_limit: 5 }),
      subscribe('p2', 'plugin_progress', { again: true }),
    ]);
    expect(client.socket.take()).toEqual([
      { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'snapshot', data: { progress: { stage: 'idle' } } },
    ]);
    upstream.broadcast('maisaka_monitor', 'main', 'stage', { n: 1 });
    expect(client.socket.take()).toEqual([{ op: 'event', domain: 'maisaka_monitor', topic: 'main', event: 'stage', data: { n: 1 } }]);
    expect(clock.pending()).toEqual([]);

    // A working socket resets the back-off.
    second.drop();
    expect(clock.pending()).toEqual([1_000]);
  });

  it('while it waits to reconnect, a message is answered upstream_unavailable at once; an unsubscribe is answered here', async () => {
    const { open, upstream, clock } = makeHub();
    const client = open();
    client.send(subscribe('m1', 'maisaka_monitor'));
    await settle();
    client.socket.take();
    upstream.last.drop();
    client.send(chatCall('c1'));
    client.send({ op: 'unsubscribe', id: 'u1', domain: 'maisaka_monitor', topic: 'main', data: {} });
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'c1', ok: false, error: { code: 'upstream_unavailable', message: expect.any(String) } },
      { op: 'response', id: 'u1', ok: true, data: { domain: 'maisaka_monitor', topic: 'main' } },
    ]);
    // Nothing left to restore: no more attempts until the client needs the upstream again.
    clock.advance(1_000);
    await settle();
    expect(upstream.sockets).toHaveLength(1);
    expect(upstream.ticketRequests).toHaveLength(1);
    expect(clock.pending()).toEqual([]);
  });

  it('an unsubscribe while open is relayed, and what was unsubscribed is not restored after a drop', async () => {
    const { open, upstream, clock } = makeHub();
    const client = open();
    client.send(subscribe('m1', 'maisaka_monitor'));
    client.send(subscribe('p1', 'plugin_progress'));
    await settle();
    client.send({ op: 'unsubscribe', id: 'u1', domain: 'maisaka_monitor', topic: 'main', data: {} });
    expect(upstream.last.sentOf('unsubscribe')).toEqual([
      { op: 'unsubscribe', id: 'u1', domain: 'maisaka_monitor', topic: 'main', data: {} },
    ]);
    expect(client.socket.take().at(-1)).toEqual({ op: 'response', id: 'u1', ok: true, data: { domain: 'maisaka_monitor', topic: 'main' } });
    upstream.last.drop();
    clock.advance(1_000);
    await settle();
    expect(upstream.last.frames).toEqual([subscribe('p1', 'plugin_progress')]);
  });

  it('a subscribe the upstream refused is not restored', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send(subscribe('w1', 'weather'));
    client.send(chatCall('c1'));
    await settle();
    upstream.last.drop();
    // Nothing remembered: no reconnect scheduled; the next message connects at once.
    client.send(chatCall('c2'));
    await settle();
    expect(upstream.last.frames.map((frame) => frame['id'])).toEqual(['c2']);
  });

  it('an unsubscribe of a relayed domain before anything was relayed opens no upstream socket', async () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send({ op: 'unsubscribe', id: 'u0', domain: 'chat', topic: 'main', data: {} });
    await settle();
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'u0', ok: true, data: { domain: 'chat', topic: 'main' } }]);
    expect(upstream.sockets).toEqual([]);
    expect(upstream.ticketRequests).toEqual([]);
  });
});

describe('WsHub with an upstream: the upstream socket goes with the client socket', () => {
  it('revokeSession (4001) closes the upstream socket and stops its reconnects', async () => {
    const { open, upstream, hub, clock } = makeHub();
    const client = open('old-token');
    const bystander = open('other-token');
    client.send(subscribe('m1', 'maisaka_monitor'));
    bystander.send(chatCall('b'));
    await settle();
    const [clientUpstream, bystanderUpstream] = upstream.sockets;
    hub.revokeSession('old-token');
    expect(client.socket.closed?.code).toBe(CLOSE_TOKEN_CHANGED);
    expect(clientUpstream?.closed).toEqual({ code: 1000, reason: expect.any(String) });
    expect(bystanderUpstream?.closed).toBeNull();
    expect(clock.pending()).toEqual([]);
    clock.advance(60_000);
    await settle();
    expect(upstream.sockets).toHaveLength(2);
  });

  it('a client socket that closes or fails closes its upstream socket', async () => {
    const { open, upstream, hub } = makeHub();
    const closing = open();
    const failing = open();
    closing.send(chatCall('a'));
    failing.send(subscribe('m', 'maisaka_monitor'));
    await settle();
    closing.disconnect();
    failing.fail();
    expect(upstream.sockets.map((socket) => socket.closed?.code)).toEqual([1000, 1000]);
    expect(hub.size).toBe(0);
  });

  it('a client that goes while its ticket is being fetched: no upstream socket is opened afterwards', async () => {
    const { open, upstream, clock } = makeHub();
    const client = open();
    client.send(chatCall('a'));
    client.disconnect();
    await settle();
    expect(upstream.sockets).toEqual([]);
    expect(clock.pending()).toEqual([]);
  });

  it('a client that goes while its upstream socket connects: the socket is closed', async () => {
    const { open, upstream } = makeHub();
    upstream.autoOpen = false;
    const client = open();
    client.send(chatCall('a'));
    await settle();
    client.disconnect();
    expect(upstream.last.closed?.code).toBe(1000);
  });
});

/** The bot's log lines as its logs/main snapshot has them (logs_ws.py's format). */
function botLine(id: string, timestamp: unknown, level: unknown, message: unknown, extra: Record<string, unknown> = {}) {
  return { id, timestamp, level, module: 'maisaka.core', message, ...extra };
}

describe("WsHub with an upstream: logs/main merges the bot's lines with ours", () => {
  const at = (seconds: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, seconds)).toISOString();

  it('one snapshot of both by time (oldest first, at most replay), ids and modules telling where from, dashboard levels', async () => {
    const { open, logs, upstream } = makeHub();
    logs.log('ours at 1', 'INFO', 'http', at(1));
    logs.log('ours at 4', 'WARNING', 'auth', at(4));
    logs.log('ours at 6', 'ERROR', 'http', at(6));
    upstream.botLogs = [
      botLine('b0', '2025-01-01T12:00:00Z', 'debug', 'bot at 0'),
      botLine('b2', '2025-01-01T20:00:02+08:00', 'WARN', 'bot at 2', {
        moduleDisplayName: '核心',
        moduleColor: '#ff0000',
        moduleBold: true,
      }),
      botLine('b3', 12345, 'INFO', 'timestamp not a string'),
      botLine('b5', '2025-01-01T12:00:05.000Z', 'fatal', 'bot at 5'),
      { id: 'b6', timestamp: '2025-01-01T12:00:06Z', level: 'INFO', module: 'x' },
      botLine('b7', '2025-01-01T12:00:07Z', 'SUCCESS', 'bot at 7'),
      'not an entry',
    ];
    const client = open();
    client.send(subscribe('l1', 'logs', { replay: 6 }));
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'l1', ok: true, data: { domain: 'logs', topic: 'main' } }]);
    await settle();
    const [snapshot, ...rest] = client.socket.take();
    expect(rest).toEqual([]);
    expect(snapshot).toMatchObject({ op: 'event', domain: 'logs', topic: 'main', event: 'snapshot' });
    expect(entriesOf(snapshot)).toEqual([
      { id: 'webui-1700000000000_000000000001', timestamp: at(1), level: 'INFO', module: 'gateway.http', message: 'ours at 1' },
      {
        id: 'bot-b2',
        timestamp: '2025-01-01T20:00:02+08:00',
        level: 'WARNING',
        module: 'maisaka.core',
        message: 'bot at 2',
        moduleDisplayName: '核心',
        moduleColor: '#ff0000',
        moduleBold: true,
      },
      { id: 'webui-1700000000000_000000000002', timestamp: at(4), level: 'WARNING', module: 'gateway.auth', message: 'ours at 4' },
      { id: 'bot-b5', timestamp: '2025-01-01T12:00:05.000Z', level: 'CRITICAL', module: 'maisaka.core', message: 'bot at 5' },
      { id: 'webui-1700000000000_000000000003', timestamp: at(6), level: 'ERROR', module: 'gateway.http', message: 'ours at 6' },
      { id: 'bot-b7', timestamp: '2025-01-01T12:00:07Z', level: 'INFO', module: 'maisaka.core', message: 'bot at 7' },
    ]);
    expect(upstream.last.sentOf('subscribe', 'logs')).toEqual([
      { op: 'subscribe', id: expect.stringMatching(/^webui-relay-/), domain: 'logs', topic: 'main', data: { replay: 6 } },
    ]);
  });

  it('then live entries from both; ours logged while the snapshot was on its way are in it, not sent twice', async () => {
    const { open, logs, upstream } = makeHub();
    const client = open();
    client.send(subscribe('l1', 'logs'));
    logs.log('while waiting', 'INFO', 'http');
    await settle();
    const [, snapshot] = client.socket.take();
    expect(entriesOf(snapshot).map((entry) => entry.message)).toEqual(['while waiting']);

    logs.log('ours live', 'DEBUG', 'http');
    upstream.broadcast('logs', 'main', 'entry', { entry: botLine('1735732800000_9', '2025-01-01 20:00:00', 'warning', 'bot live') });
    upstream.broadcast('logs', 'main', 'entry', { entry: botLine('bad', null, 'INFO', 'no timestamp') });
    upstream.broadcast('logs', 'main', 'entry', { entry: { id: 'bad2', timestamp: '2025-01-01 20:00:00', level: 'INFO' } });
    upstream.broadcast('logs', 'main', 'entry', {});
    upstream.broadcast('logs', 'main', 'entry', 'nonsense');
    logs.log('ours again', 'INFO', 'auth');
    const live = client.socket.take();
    expect(live.map((envelope) => (envelope as Event).event)).toEqual(['entry', 'entry', 'entry']);
    expect(live.map(entryOf).map(({ id, module, level, message }) => ({ id, module, level, message }))).toEqual([
      { id: 'webui-1700000000000_000000000002', module: 'gateway.http', level: 'DEBUG', message: 'ours live' },
      { id: 'bot-1735732800000_9', module: 'maisaka.core', level: 'WARNING', message: 'bot live' },
      { id: 'webui-1700000000000_000000000003', module: 'gateway.auth', level: 'INFO', message: 'ours again' },
    ]);
  });

  it('the dashboard subscribes twice per reconnect: both acknowledged, one upstream subscription, one snapshot, no doubles', async () => {
    const { open, logs, upstream } = makeHub();
    upstream.botLogs = [botLine('b1', '2025-01-01T12:00:00Z', 'INFO', 'old bot line')];
    const client = open();
    client.send(subscribe('l1', 'logs', { replay: 100 }));
    client.send(subscribe('l2', 'logs', { replay: 100 }));
    await settle();
    const answers = client.socket.take();
    expect(answers.filter((envelope) => envelope.op === 'response')).toEqual([
      { op: 'response', id: 'l1', ok: true, data: { domain: 'logs', topic: 'main' } },
      { op: 'response', id: 'l2', ok: true, data: { domain: 'logs', topic: 'main' } },
    ]);
    expect(answers.filter((envelope) => (envelope as Event).event === 'snapshot')).toHaveLength(1);
    expect(upstream.last.sentOf('subscribe', 'logs')).toHaveLength(1);
    expect(logs.listenerCount).toBe(1);

    // Once more after the snapshot went: a fresh snapshot, still one listener and one upstream subscription's entries.
    client.send(subscribe('l3', 'logs'));
    await settle();
    expect(client.socket.take().map((envelope) => (envelope as Event).event ?? envelope.op)).toEqual(['response', 'snapshot']);
    expect(logs.listenerCount).toBe(1);
    expect(upstream.last.subscriptions.has('logs/main')).toBe(true);
    logs.log('ours once');
    upstream.broadcast('logs', 'main', 'entry', { entry: botLine('b2', '2025-01-01T12:00:01Z', 'INFO', 'bot once') });
    expect(client.socket.take().map((envelope) => entryOf(envelope).message)).toEqual(['ours once', 'bot once']);
  });

  it('the upstream down: the snapshot has ours only and the subscribe answers ok; the bot joins live once it connects', async () => {
    const { open, logs, upstream, clock } = makeHub();
    upstream.ticket = 'down';
    upstream.botLogs = [botLine('b1', '2025-01-01T12:00:00Z', 'INFO', 'from the snapshot')];
    logs.log('ours');
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    const [response, snapshot] = client.socket.take();
    expect(response).toEqual({ op: 'response', id: 'l1', ok: true, data: { domain: 'logs', topic: 'main' } });
    expect(entriesOf(snapshot).map((entry) => entry.id)).toEqual(['webui-1700000000000_000000000001']);
    expect(client.socket.closed).toBeNull();

    upstream.ticket = 'ok';
    clock.advance(clock.pending()[0] ?? 0);
    await settle();
    // Its late snapshot would wipe what the client shows: only its live entries join.
    expect(upstream.last.sentOf('subscribe', 'logs')).toHaveLength(1);
    expect(client.socket.take()).toEqual([]);
    upstream.broadcast('logs', 'main', 'entry', { entry: botLine('b2', '2025-01-01T12:00:01Z', 'ERROR', 'bot live') });
    logs.log('ours live');
    expect(client.socket.take().map((envelope) => entryOf(envelope).id)).toEqual(['bot-b2', 'webui-1700000000000_000000000002']);
  });

  it("the upstream slow to answer: after the wait (2 s) the snapshot has ours only; the bot's late snapshot is not sent", async () => {
    const { open, logs, upstream, clock } = makeHub();
    upstream.autoOpen = false;
    logs.log('ours');
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    expect(client.socket.take().map((envelope) => envelope.op)).toEqual(['response']);
    clock.advance(1_999);
    expect(client.socket.take()).toEqual([]);
    clock.advance(1);
    expect(entriesOf(client.socket.take()[0]).map((entry) => entry.message)).toEqual(['ours']);
    upstream.botLogs = [botLine('b1', '2025-01-01T12:00:00Z', 'INFO', 'late')];
    upstream.last.open();
    expect(client.socket.take()).toEqual([]);
    upstream.broadcast('logs', 'main', 'entry', { entry: botLine('b2', '2025-01-01T12:00:01Z', 'INFO', 'bot live') });
    expect(client.socket.take().map((envelope) => entryOf(envelope).id)).toEqual(['bot-b2']);
  });

  it('the wait is configurable (upstreamLogsWaitMs)', async () => {
    const { open, upstream, clock } = makeHub({ upstreamLogsWaitMs: 500 });
    upstream.autoOpen = false;
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    client.socket.take();
    clock.advance(500);
    expect(client.socket.take().map((envelope) => (envelope as Event).event)).toEqual(['snapshot']);
  });

  it('the upstream refusing its logs subscription: ours only, at once', async () => {
    const { open, logs, upstream } = makeHub();
    upstream.handle = (socket, frame) =>
      socket.deliver({ op: 'response', id: frame['id'], ok: false, error: { code: 'unsupported_subscription', message: 'no' } });
    logs.log('ours');
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    const [response, snapshot] = client.socket.take();
    expect(response).toMatchObject({ id: 'l1', ok: true });
    expect(entriesOf(snapshot).map((entry) => entry.message)).toEqual(['ours']);
  });

  it("unsubscribe stops both sources and unsubscribes upstream; the answer to that is not the client's", async () => {
    const { open, logs, upstream } = makeHub();
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    client.send({ op: 'unsubscribe', id: 'u1', domain: 'logs', topic: 'main', data: {} });
    expect(client.socket.take().at(-1)).toEqual({ op: 'response', id: 'u1', ok: true, data: { domain: 'logs', topic: 'main' } });
    expect(upstream.last.sentOf('unsubscribe', 'logs')).toHaveLength(1);
    expect(upstream.last.subscriptions.has('logs/main')).toBe(false);
    logs.log('unseen');
    upstream.last.deliver({
      op: 'event',
      domain: 'logs',
      topic: 'main',
      event: 'entry',
      data: { entry: botLine('b', 'x', 'INFO', 'unseen') },
    });
    expect(client.socket.take()).toEqual([]);
    expect(logs.listenerCount).toBe(0);
  });

  it("the logs subscription is restored after an upstream drop; no second snapshot, the bot's entries resume", async () => {
    const { open, upstream, clock } = makeHub();
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    client.socket.take();
    upstream.last.drop();
    clock.advance(1_000);
    await settle();
    expect(upstream.last.sentOf('subscribe', 'logs')).toHaveLength(1);
    expect(client.socket.take()).toEqual([]);
    upstream.broadcast('logs', 'main', 'entry', { entry: botLine('b9', '2025-01-01T12:00:09Z', 'INFO', 'after') });
    expect(client.socket.take().map((envelope) => entryOf(envelope).id)).toEqual(['bot-b9']);
  });

  it('a closed client stops listening to our log', async () => {
    const { open, logs, upstream } = makeHub();
    const client = open();
    client.send(subscribe('l1', 'logs'));
    await settle();
    client.disconnect();
    expect(logs.listenerCount).toBe(0);
    expect(upstream.last.closed?.code).toBe(1000);
  });

  it('replay is validated as without an upstream', () => {
    const { open, upstream } = makeHub();
    const client = open();
    client.send(subscribe('l1', 'logs', { replay: 501 }));
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'l1', ok: false, error: { code: 'invalid_request', message: expect.any(String) } },
    ]);
    expect(upstream.ticketRequests).toEqual([]);
  });
});
