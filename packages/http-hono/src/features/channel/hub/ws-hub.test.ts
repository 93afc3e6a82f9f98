import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '../../../testing/test-app.js';
import { FakeLogs, openFakeSocket } from '../../../testing/ws-doubles.js';
import type { LogEntry } from './log-source.js';
import { IDLE_PROGRESS, PluginProgressBoard, type PluginProgress } from '../domains/plugin-progress-board.js';
import { PluginProgressDomain } from '../domains/plugin-progress-domain.js';
import { CLOSE_GOING_AWAY, CLOSE_MESSAGE_TOO_BIG, CLOSE_TOKEN_CHANGED, CLOSE_TRY_AGAIN_LATER, WsHub, type WsHubOptions } from './ws-hub.js';

const NOW = 1_700_000_123_456;

function makeHub(options: Partial<WsHubOptions> = {}) {
  const logs = new FakeLogs();
  const progress = new PluginProgressBoard();
  const logger = new RecordingLogger();
  let counter = 0;
  const hub = new WsHub({
    logs,
    domains: [new PluginProgressDomain(progress)],
    logger,
    now: () => NOW,
    newConnectionId: () => `conn-${++counter}`,
    ...options,
  });

  /** Opens one socket under `session` the way the runtime would: events(), then onOpen. */
  const open = (session = 'session-a') => {
    const { socket, events, ctx, send, sendJson } = openFakeSocket(hub, session);
    /** The peer went away: the runtime reports the close. */
    const disconnect = () => {
      socket.readyState = 3;
      events.onClose?.(new Event('close') as CloseEvent, ctx);
    };
    const fail = () => events.onError?.(new Event('error'), ctx);
    return { socket, events, send, sendJson, disconnect, fail };
  };
  return { hub, logs, progress, logger, open };
}

type Client = ReturnType<ReturnType<typeof makeHub>['open']>;

function subscribeLogs(client: Client, id: string | number = 1, data?: unknown) {
  client.sendJson({ op: 'subscribe', id, domain: 'logs', topic: 'main', ...(data === undefined ? {} : { data }) });
  return client.socket.take();
}

describe('WsHub: open', () => {
  it('sends system/ready with connection_id and timestamp first', () => {
    const { open, hub } = makeHub();
    const client = open();
    expect(client.socket.take()).toEqual([
      { op: 'event', domain: 'system', event: 'ready', data: { connection_id: 'conn-1', timestamp: NOW } },
    ]);
    expect(client.socket.closed).toBeNull();
    expect(hub.size).toBe(1);
  });

  it('every connection gets its own id', () => {
    const { open } = makeHub();
    const ids = [open(), open(), open()].map(
      (client) => (client.socket.take()[0] as { data: { connection_id: string } }).data.connection_id,
    );
    expect(new Set(ids).size).toBe(3);
  });
});

describe('WsHub: ping and errors keep the connection', () => {
  it('{op:"ping"} -> {op:"pong",ts}', () => {
    const { open } = makeHub();
    const client = open();
    client.socket.take();
    client.sendJson({ op: 'ping' });
    expect(client.socket.take()).toEqual([{ op: 'pong', ts: NOW }]);
  });

  it.each([
    ['non-JSON text', 'not json {', null, 'invalid_json'],
    ['a JSON array', '[1,2]', null, 'invalid_message'],
    ['a JSON number', '42', null, 'invalid_message'],
    ['a JSON string', '"ping"', null, 'invalid_message'],
    ['JSON null', 'null', null, 'invalid_message'],
    ['an object without op', '{"id":7}', 7, 'unknown_op'],
    ['an unknown op', '{"op":"shout","id":"x1"}', 'x1', 'unknown_op'],
    ['subscribe without id', '{"op":"subscribe","domain":"logs","topic":"main"}', null, 'invalid_message'],
    ['subscribe without topic', '{"op":"subscribe","id":3,"domain":"logs"}', 3, 'invalid_message'],
    ['unsubscribe with a non-string domain', '{"op":"unsubscribe","id":4,"domain":1,"topic":"main"}', 4, 'invalid_message'],
    ['an unknown domain', '{"op":"subscribe","id":5,"domain":"weather","topic":"main"}', 5, 'unknown_topic'],
    ['an unknown topic of logs', '{"op":"subscribe","id":6,"domain":"logs","topic":"other"}', 6, 'unknown_topic'],
    ['an unknown topic of plugin_progress', '{"op":"subscribe","id":"p","domain":"plugin_progress","topic":"x"}', 'p', 'unknown_topic'],
  ])('%s -> ok:false with error {code,message}, connection kept', (_name, text, id, code) => {
    const { open, hub } = makeHub();
    const client = open();
    client.socket.take();
    client.send(text);
    const [answer, ...rest] = client.socket.take();
    expect(rest).toEqual([]);
    expect(answer).toEqual({ op: 'response', id, ok: false, error: { code, message: expect.any(String) } });
    expect((answer as { error: { message: string } }).error.message.length).toBeGreaterThan(0);
    expect(client.socket.closed).toBeNull();
    expect(hub.size).toBe(1);
    client.sendJson({ op: 'ping' });
    expect(client.socket.take()).toEqual([{ op: 'pong', ts: NOW }]);
  });

  it('a binary message -> ok:false unsupported_message, connection kept', () => {
    const { open } = makeHub();
    const client = open();
    client.socket.take();
    client.send(new ArrayBuffer(4));
    expect(client.socket.take()).toEqual([
      { op: 'response', id: null, ok: false, error: { code: 'unsupported_message', message: expect.any(String) } },
    ]);
    expect(client.socket.closed).toBeNull();
  });

  it('an unknown op echoed in the message is cut short', () => {
    const { open } = makeHub();
    const client = open();
    client.socket.take();
    client.sendJson({ op: 'x'.repeat(5_000), id: 1 });
    const [answer] = client.socket.take() as Array<{ error: { message: string } }>;
    expect(answer?.error.message.length).toBeLessThan(200);
  });
});

describe('WsHub: message size', () => {
  it('a message over maxMessageBytes closes the socket with 1009 and frees it', () => {
    const { open, hub, logs } = makeHub({ maxMessageBytes: 100 });
    const client = open();
    subscribeLogs(client);
    client.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(200) }));
    expect(client.socket.closed).toEqual({ code: CLOSE_MESSAGE_TOO_BIG, reason: expect.any(String) });
    expect(hub.size).toBe(0);
    expect(logs.listenerCount).toBe(0);
  });

  it('a message of exactly maxMessageBytes is served', () => {
    const { open } = makeHub({ maxMessageBytes: 100 });
    const client = open();
    client.socket.take();
    const base = JSON.stringify({ op: 'ping', pad: '' });
    client.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(100 - base.length) }));
    expect(client.socket.closed).toBeNull();
    expect(client.socket.take()).toEqual([{ op: 'pong', ts: NOW }]);
  });

  it('the limit counts UTF-8 bytes, not characters', () => {
    const { open } = makeHub({ maxMessageBytes: 100 });
    const client = open();
    // 40 characters of 3 bytes each: 120+ bytes in fewer than 100 characters.
    client.send(JSON.stringify({ op: 'ping', pad: '日'.repeat(40) }));
    expect(client.socket.closed).toEqual({ code: CLOSE_MESSAGE_TOO_BIG, reason: expect.any(String) });
  });

  it('a binary message over the limit also closes with 1009', () => {
    const { open } = makeHub({ maxMessageBytes: 100 });
    const small = open();
    small.send(new ArrayBuffer(100));
    expect(small.socket.closed).toBeNull();
    const big = open();
    big.send(new ArrayBuffer(101));
    expect(big.socket.closed?.code).toBe(CLOSE_MESSAGE_TOO_BIG);
  });

  it('the default limit is 64 KiB', () => {
    const { open } = makeHub();
    const fits = open();
    const base = JSON.stringify({ op: 'ping', pad: '' });
    fits.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(64 * 1024 - base.length) }));
    expect(fits.socket.closed).toBeNull();
    const tooBig = open();
    tooBig.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(64 * 1024) }));
    expect(tooBig.socket.closed?.code).toBe(CLOSE_MESSAGE_TOO_BIG);
  });
});

describe('WsHub: domain logs, topic main', () => {
  it('subscribe -> response, then one snapshot of the last 100 entries by default, then live entries', () => {
    const { open, logs } = makeHub();
    for (let i = 0; i < 150; i++) logs.log(`line ${i}`);
    const client = open();
    client.socket.take();
    const [response, snapshot, ...rest] = subscribeLogs(client, 'sub-1');
    expect(rest).toEqual([]);
    expect(response).toEqual({ op: 'response', id: 'sub-1', ok: true, data: { domain: 'logs', topic: 'main' } });
    expect(snapshot).toMatchObject({ op: 'event', domain: 'logs', topic: 'main', event: 'snapshot' });
    const entries = (snapshot as { data: { entries: LogEntry[] } }).data.entries;
    expect(entries).toHaveLength(100);
    expect(entries[0]?.message).toBe('line 50');
    expect(entries[99]?.message).toBe('line 149');
    expect(entries.map((entry) => entry.id)).toEqual([...entries.map((entry) => entry.id)].sort());

    const live = logs.log('fresh', 'DEBUG', 'http');
    // The dashboard appends a live line only from data.entry (docs/dashboard.md §4).
    expect(client.socket.take()).toEqual([{ op: 'event', domain: 'logs', topic: 'main', event: 'entry', data: { entry: live } }]);
    expect(Object.keys(live).sort()).toEqual(['id', 'level', 'message', 'module', 'timestamp']);
  });

  it.each([
    [0, 0],
    [1, 1],
    [100, 100],
    [500, 500],
  ])('data.replay %i -> %i entries', (replay, expected) => {
    const { open, logs } = makeHub();
    for (let i = 0; i < 600; i++) logs.log(`line ${i}`);
    const client = open();
    client.socket.take();
    const [, snapshot] = subscribeLogs(client, 1, { replay });
    const entries = (snapshot as { data: { entries: LogEntry[] } }).data.entries;
    expect(entries).toHaveLength(expected);
    if (expected > 0) expect(entries.at(-1)?.message).toBe('line 599');
  });

  it('fewer entries than asked: all of them', () => {
    const { open, logs } = makeHub();
    logs.log('only');
    const client = open();
    client.socket.take();
    const [, snapshot] = subscribeLogs(client, 1, { replay: 500 });
    expect((snapshot as { data: { entries: LogEntry[] } }).data.entries.map((entry) => entry.message)).toEqual(['only']);
  });

  it.each([[501], [-1], [1.5], ['10'], [null]])('data.replay %j -> ok:false invalid_request, not subscribed', (replay) => {
    const { open, logs } = makeHub();
    const client = open();
    client.socket.take();
    expect(subscribeLogs(client, 9, { replay })).toEqual([
      { op: 'response', id: 9, ok: false, error: { code: 'invalid_request', message: expect.any(String) } },
    ]);
    logs.log('after');
    expect(client.socket.take()).toEqual([]);
    expect(client.socket.closed).toBeNull();
  });

  it('every subscriber gets every new entry, in order', () => {
    const { open, logs } = makeHub();
    const first = open();
    const second = open();
    const bystander = open();
    subscribeLogs(first);
    subscribeLogs(second);
    bystander.socket.take();
    const lines = ['a', 'b', 'c', 'd'].map((message) => logs.log(message));
    for (const client of [first, second]) {
      const got = client.socket.take() as Array<{ event: string; data: { entry: LogEntry } }>;
      expect(got.map((envelope) => envelope.event)).toEqual(['entry', 'entry', 'entry', 'entry']);
      expect(got.map((envelope) => envelope.data.entry)).toEqual(lines);
    }
    expect(bystander.socket.take()).toEqual([]);
  });

  it('subscribing twice does not double the entries', () => {
    const { open, logs } = makeHub();
    const client = open();
    subscribeLogs(client, 1);
    subscribeLogs(client, 2);
    logs.log('once');
    expect(client.socket.take()).toHaveLength(1);
    expect(logs.listenerCount).toBe(1);
  });

  it('unsubscribe -> response with id; no more entries', () => {
    const { open, logs } = makeHub();
    const client = open();
    subscribeLogs(client);
    client.sendJson({ op: 'unsubscribe', id: 'u1', domain: 'logs', topic: 'main' });
    expect(client.socket.take()).toEqual([{ op: 'response', id: 'u1', ok: true, data: { domain: 'logs', topic: 'main' } }]);
    logs.log('unseen');
    expect(client.socket.take()).toEqual([]);
    expect(logs.listenerCount).toBe(0);
  });

  it('a closed or failed socket stops listening to the log', () => {
    const { open, logs, hub } = makeHub();
    const closing = open();
    const failing = open();
    subscribeLogs(closing);
    subscribeLogs(failing);
    expect(logs.listenerCount).toBe(2);
    closing.disconnect();
    failing.fail();
    expect(logs.listenerCount).toBe(0);
    expect(hub.size).toBe(0);
  });

  it('a socket that is closing meanwhile simply misses entries', () => {
    const { open, logs } = makeHub();
    const client = open();
    subscribeLogs(client);
    client.socket.readyState = 2;
    logs.log('missed');
    expect(client.socket.take()).toEqual([]);
  });
});

describe('WsHub: domain plugin_progress, topic main', () => {
  const subscribeProgress = (client: Client, id: string | number = 'pp') => {
    client.sendJson({ op: 'subscribe', id, domain: 'plugin_progress', topic: 'main' });
    return client.socket.take();
  };

  it('subscribe -> response, then a snapshot whose progress is idle until something is published', () => {
    const { open } = makeHub();
    const client = open();
    client.socket.take();
    expect(subscribeProgress(client)).toEqual([
      { op: 'response', id: 'pp', ok: true, data: { domain: 'plugin_progress', topic: 'main' } },
      { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'snapshot', data: { progress: IDLE_PROGRESS } },
    ]);
  });

  it('the snapshot is one idle progress object while no plugin operation runs', () => {
    const { open } = makeHub();
    const client = open();
    client.socket.take();
    const [, snapshot] = subscribeProgress(client);
    expect(snapshot).toEqual({
      op: 'event',
      domain: 'plugin_progress',
      topic: 'main',
      event: 'snapshot',
      data: { progress: IDLE_PROGRESS },
    });
    expect(IDLE_PROGRESS).toEqual({
      operation: 'idle',
      stage: 'idle',
      progress: 0,
      message: '',
      error: null,
      plugin_id: null,
      total_plugins: 0,
      loaded_plugins: 0,
    });
  });

  it('published progress reaches subscribers as update events with data.progress; later subscribers see the latest in the snapshot', () => {
    const { open, progress } = makeHub();
    const first = open();
    const second = open();
    subscribeProgress(first);
    subscribeProgress(second);
    const step: PluginProgress = {
      ...IDLE_PROGRESS,
      operation: 'install',
      stage: 'loading',
      progress: 40,
      message: 'downloading',
      plugin_id: 'weather',
    };
    progress.publish(step);
    for (const client of [first, second]) {
      expect(client.socket.take()).toEqual([
        { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'update', data: { progress: step } },
      ]);
    }
    const done: PluginProgress = { ...step, stage: 'success', progress: 100, message: 'installed' };
    progress.publish(done);
    const late = open();
    late.socket.take();
    const [, snapshot] = subscribeProgress(late);
    expect(snapshot).toEqual({ op: 'event', domain: 'plugin_progress', topic: 'main', event: 'snapshot', data: { progress: done } });
  });

  it('unsubscribe stops updates', () => {
    const { open, progress } = makeHub();
    const client = open();
    subscribeProgress(client);
    client.sendJson({ op: 'unsubscribe', id: 2, domain: 'plugin_progress', topic: 'main' });
    client.socket.take();
    progress.publish({ ...IDLE_PROGRESS, operation: 'fetch', stage: 'loading' });
    expect(client.socket.take()).toEqual([]);
  });

  it('the board holds one progress, a copy of the last one published', () => {
    const board = new PluginProgressBoard();
    expect(board.snapshot()).toEqual(IDLE_PROGRESS);
    const published: PluginProgress = { ...IDLE_PROGRESS, operation: 'uninstall', stage: 'error', error: 'not found', plugin_id: 'b' };
    board.publish({ ...IDLE_PROGRESS, operation: 'fetch', stage: 'loading', plugin_id: 'a' });
    board.publish(published);
    published.message = 'changed afterwards';
    expect(board.snapshot()).toEqual({ ...IDLE_PROGRESS, operation: 'uninstall', stage: 'error', error: 'not found', plugin_id: 'b' });
  });
});

describe('WsHub: access token changes', () => {
  it('revokeSession closes every socket of that session with 4001 at once, and only those', () => {
    const { open, hub, logs } = makeHub();
    const a1 = open('old-token');
    const a2 = open('old-token');
    const b = open('other-token');
    subscribeLogs(a1);
    subscribeLogs(b);
    hub.revokeSession('old-token');
    expect(a1.socket.closed).toEqual({ code: CLOSE_TOKEN_CHANGED, reason: expect.any(String) });
    expect(a2.socket.closed).toEqual({ code: CLOSE_TOKEN_CHANGED, reason: expect.any(String) });
    expect(b.socket.closed).toBeNull();
    expect(hub.size).toBe(1);
    expect(logs.listenerCount).toBe(1);
    b.socket.take();
    logs.log('still here');
    expect(b.socket.take()).toHaveLength(1);
  });

  it('the close reason says why: the token changed by default, a revoked API key when it was one', () => {
    const { open, hub } = makeHub();
    const tokenSocket = open('old-token');
    const keySocket = open('key:abc');
    hub.revokeSession('old-token');
    hub.revokeSession('key:abc', 'key_revoked');
    expect(tokenSocket.socket.closed).toEqual({ code: CLOSE_TOKEN_CHANGED, reason: 'access token changed' });
    expect(keySocket.socket.closed).toEqual({ code: CLOSE_TOKEN_CHANGED, reason: 'API key revoked' });
  });

  it('revoking twice (file change and service event) is harmless', () => {
    const { open, hub } = makeHub();
    const client = open('t');
    hub.revokeSession('t');
    hub.revokeSession('t');
    client.disconnect();
    expect(client.socket.closed?.code).toBe(CLOSE_TOKEN_CHANGED);
    expect(hub.size).toBe(0);
  });

  it('a socket whose close throws is still dropped, and the failure is logged at debug', () => {
    const { open, hub, logger } = makeHub();
    const client = open('t');
    client.socket.close = () => {
      throw new Error('already gone');
    };
    hub.revokeSession('t');
    expect(hub.size).toBe(0);
    expect(logger.at('debug').map((call) => call.message)).toContain('closing a WebSocket failed');
  });

  it('closeAll closes everything with the given code', () => {
    const { open, hub } = makeHub();
    const clients = [open('a'), open('b'), open('c')];
    hub.closeAll(CLOSE_GOING_AWAY, 'server shutting down');
    for (const client of clients) expect(client.socket.closed).toEqual({ code: CLOSE_GOING_AWAY, reason: 'server shutting down' });
    expect(hub.size).toBe(0);
    // Closing until the runtime reports each socket closed, so a shutdown can wait for the close frames to go out.
    expect(hub.closing).toBe(3);
    for (const client of clients) client.disconnect();
    expect(hub.closing).toBe(0);
  });
});

describe('WsHub: caps (docs/decisions/0014-bounded-memory.md)', () => {
  it('maxPerSession 3 / maxTotal 5: the 4th socket of a session and the 6th overall are closed with 1013', () => {
    const { open, hub } = makeHub({ maxPerSession: 3, maxTotal: 5 });
    const a = [open('a'), open('a'), open('a')];
    expect(hub.canAccept('a')).toBe(false);
    expect(hub.canAccept('b')).toBe(true);
    const fourth = open('a');
    expect(fourth.socket.closed).toEqual({ code: CLOSE_TRY_AGAIN_LATER, reason: expect.any(String) });
    expect(fourth.socket.sent).toEqual([]);
    expect(hub.size).toBe(3);

    const b = [open('b'), open('b')];
    expect(hub.size).toBe(5);
    expect(hub.canAccept('c')).toBe(false);
    const sixth = open('c');
    expect(sixth.socket.closed?.code).toBe(CLOSE_TRY_AGAIN_LATER);
    expect(hub.size).toBe(5);
    for (const client of [...a, ...b]) expect(client.socket.closed).toBeNull();

    // A refused socket's own close report must not free anyone else's slot.
    fourth.disconnect();
    sixth.disconnect();
    expect(hub.size).toBe(5);

    a[0]?.disconnect();
    expect(hub.canAccept('a')).toBe(true);
    expect(hub.canAccept('c')).toBe(true);
    expect(open('c').socket.closed).toBeNull();
    expect(hub.size).toBe(5);
  });

  it('the defaults are 256 per session and 1024 overall', () => {
    const { open, hub } = makeHub();
    for (let i = 0; i < 256; i++) open('a');
    expect(hub.canAccept('a')).toBe(false);
    expect(open('a').socket.closed?.code).toBe(CLOSE_TRY_AGAIN_LATER);
    for (let s = 0; s < 3; s++) for (let i = 0; i < 256; i++) open(`s${s}`);
    expect(hub.size).toBe(1024);
    expect(hub.canAccept('fresh')).toBe(false);
  });
});
