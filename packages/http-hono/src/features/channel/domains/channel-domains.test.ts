import type { Principal } from '@webui/core';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WSContext, WSEvents } from 'hono/ws';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { MountError } from '../../../mount/mount-error.js';
import { RecordingLogger } from '../../../testing/test-app.js';
import { FakeLogs, FakeSocket, keyPrincipal, settle, tokenPrincipal } from '../../../testing/ws-doubles.js';
import { ChannelCallError } from './channel-call-error.js';
import { ChannelDomain, channelCall } from './channel-domain.js';
import type { ChannelDomainPort } from './channel-domain-port.js';
import { PluginProgressBoard } from './plugin-progress-board.js';
import { PluginProgressDomain } from './plugin-progress-domain.js';
import { SecurityDomain } from './security-domain.js';
import { SecurityFeed } from './security-feed.js';
import { WsHub, type WsHubOptions } from '../hub/ws-hub.js';

const NOW = 1_700_000_123_456;

function makeHub(domains: ChannelDomainPort[], options: Partial<WsHubOptions> = {}) {
  const logger = new RecordingLogger();
  let counter = 0;
  const hub = new WsHub({ logs: new FakeLogs(), domains, logger, now: () => NOW, newConnectionId: () => `conn-${++counter}`, ...options });
  /** Opens one socket as the runtime would, for a ticket that redeemed to `principal`. */
  const open = (principal: Principal = tokenPrincipal()) => {
    const socket = new FakeSocket();
    const events: WSEvents = hub.events(principal);
    const ctx = socket as unknown as WSContext;
    events.onOpen?.(new Event('open'), ctx);
    socket.take();
    const send = (message: unknown) => events.onMessage?.(new MessageEvent('message', { data: JSON.stringify(message) }), ctx);
    const close = () => {
      socket.readyState = 3;
      events.onClose?.(new Event('close') as CloseEvent, ctx);
    };
    return { socket, send, close };
  };
  return { hub, logger, open };
}

const subscribe = (id: string, domain: string, topic = 'main', data?: unknown) => ({
  op: 'subscribe',
  id,
  domain,
  topic,
  ...(data === undefined ? {} : { data }),
});
const call = (id: string, domain: string, method: string, data?: unknown) => ({
  op: 'call',
  id,
  domain,
  method,
  ...(data === undefined ? {} : { data }),
});
const ack = (id: string, domain: string, topic = 'main') => ({ op: 'response', id, ok: true, data: { domain, topic } });
const refusal = (id: string, code: string) => ({ op: 'response', id, ok: false, error: { code, message: expect.any(String) } });

describe('a domain publishes to its own subscribers only', () => {
  it('two domains, two topics, two sockets: each event reaches the sockets subscribed to its domain and topic, no other', () => {
    const chat = new ChannelDomain('chat', { topics: ['main', 'room2'] });
    const weather = new ChannelDomain('weather');
    const { open } = makeHub([chat, weather]);
    const a = open();
    const b = open(keyPrincipal('board', 'read'));
    a.send(subscribe('1', 'chat'));
    b.send(subscribe('2', 'chat', 'room2'));
    b.send(subscribe('3', 'weather'));
    expect(a.socket.take()).toEqual([ack('1', 'chat')]);
    expect(b.socket.take()).toEqual([ack('2', 'chat', 'room2'), ack('3', 'weather')]);

    chat.publish('main', 'message', { text: 'hi' });
    chat.publish('room2', 'typing', { who: 'op' });
    weather.publish('main', 'rain', { mm: 3 });
    expect(a.socket.take()).toEqual([{ op: 'event', domain: 'chat', topic: 'main', event: 'message', data: { text: 'hi' } }]);
    expect(b.socket.take()).toEqual([
      { op: 'event', domain: 'chat', topic: 'room2', event: 'typing', data: { who: 'op' } },
      { op: 'event', domain: 'weather', topic: 'main', event: 'rain', data: { mm: 3 } },
    ]);
  });

  it('after unsubscribe or close nothing more arrives; a second subscribe replaces the first (one event, not two)', () => {
    const chat = new ChannelDomain('chat');
    const { open } = makeHub([chat]);
    const a = open();
    const b = open();
    a.send(subscribe('1', 'chat'));
    a.send(subscribe('2', 'chat'));
    b.send(subscribe('3', 'chat'));
    a.socket.take();
    b.socket.take();
    chat.publish('main', 'tick', 1);
    expect(a.socket.take()).toHaveLength(1);
    expect(b.socket.take()).toHaveLength(1);
    a.send({ op: 'unsubscribe', id: '4', domain: 'chat', topic: 'main' });
    b.close();
    chat.publish('main', 'tick', 2);
    expect(a.socket.take()).toEqual([ack('4', 'chat')]);
    expect(b.socket.take()).toEqual([]);
  });

  it('the snapshot follows the acknowledgement when the domain gives one, with the principal it was asked for', () => {
    const snapshot = vi.fn((topic: string, principal: Principal) => (topic === 'main' ? { for: principal.kind } : undefined));
    const chat = new ChannelDomain('chat', { topics: ['main', 'quiet'], snapshot });
    const { open } = makeHub([chat]);
    const client = open(keyPrincipal('board', 'read'));
    client.send(subscribe('1', 'chat'));
    client.send(subscribe('2', 'chat', 'quiet'));
    expect(client.socket.take()).toEqual([
      ack('1', 'chat'),
      { op: 'event', domain: 'chat', topic: 'main', event: 'snapshot', data: { for: 'key' } },
      ack('2', 'chat', 'quiet'),
    ]);
    expect(snapshot).toHaveBeenCalledWith('main', keyPrincipal('board', 'read'));
  });

  it("a topic the domain does not declare is unknown_topic, the hub's list naming the domain's topics", () => {
    const { open } = makeHub([new ChannelDomain('chat', { topics: ['main', 'room2'] })]);
    const client = open();
    client.send(subscribe('1', 'chat', 'room3'));
    const [answer] = client.socket.take();
    expect(answer).toEqual(refusal('1', 'unknown_topic'));
    expect((answer as { error: { message: string } }).error.message).toBe(
      'No topic "chat/room3"; available: logs/main, chat/main, chat/room2.',
    );
  });

  it("a domain's own refusal reaches the client as it gave it; a snapshot that throws is internal_error, logged, the socket kept", () => {
    const picky: ChannelDomainPort = {
      name: 'picky',
      scope: 'read',
      subscribe: ({ data }) =>
        data === 'please' ? { ok: true, listen: () => () => undefined } : { ok: false, code: 'bad_manners', message: 'Say please.' },
    };
    const broken = new ChannelDomain('broken', {
      snapshot: () => {
        throw new Error('snapshot store offline');
      },
    });
    const { open, logger, hub } = makeHub([picky, broken]);
    const client = open();
    client.send(subscribe('1', 'picky', 'main', 'now'));
    client.send(subscribe('2', 'picky', 'main', 'please'));
    client.send(subscribe('3', 'broken'));
    expect(client.socket.take()).toEqual([
      { op: 'response', id: '1', ok: false, error: { code: 'bad_manners', message: 'Say please.' } },
      ack('2', 'picky'),
      refusal('3', 'internal_error'),
    ]);
    expect(logger.text()).toContain('snapshot store offline');
    expect(hub.subscriptionCounts()).toEqual({ logs: 0, picky: 1, broken: 0 });
  });

  it('publishing to a topic the domain does not declare is a programming error, said at once', () => {
    expect(() => new ChannelDomain('chat').publish('mian', 'x', 1)).toThrow(RangeError);
  });

  it('an event that cannot be serialised is logged and dropped, never thrown at the publisher', () => {
    const chat = new ChannelDomain('chat');
    const { open, logger } = makeHub([chat]);
    const client = open();
    client.send(subscribe('1', 'chat'));
    client.socket.take();
    expect(() => chat.publish('main', 'big', { n: 1n })).not.toThrow();
    expect(client.socket.take()).toEqual([]);
    expect(logger.at('error')).toHaveLength(1);
    chat.publish('main', 'fine', 1);
    expect(client.socket.take()).toHaveLength(1);
  });
});

describe("a domain's scope against the socket's principal", () => {
  const secrets = () => new ChannelDomain('secrets', { scope: 'admin', snapshot: () => ({ n: 1 }) });

  it('a read key cannot subscribe to an admin domain (insufficient_scope, no snapshot, no events); the token and an admin key can', () => {
    const domain = secrets();
    const { open } = makeHub([domain]);
    const reader = open(keyPrincipal('board', 'read'));
    reader.send(subscribe('1', 'secrets'));
    const [answer, ...rest] = reader.socket.take();
    expect(answer).toEqual(refusal('1', 'insufficient_scope'));
    expect(rest).toEqual([]);
    domain.publish('main', 'changed', {});
    expect(reader.socket.take()).toEqual([]);

    for (const principal of [tokenPrincipal(), keyPrincipal('deploy', 'admin')]) {
      const client = open(principal);
      client.send(subscribe('2', 'secrets'));
      expect(client.socket.take()).toEqual([
        ack('2', 'secrets'),
        { op: 'event', domain: 'secrets', topic: 'main', event: 'snapshot', data: { n: 1 } },
      ]);
    }
  });

  it('nor call it, even a method declared read', async () => {
    const handle = vi.fn(() => 'ok');
    const domain = new ChannelDomain('secrets', { scope: 'admin', calls: { peek: { scope: 'read', handle } } });
    const { open } = makeHub([domain]);
    const reader = open(keyPrincipal('board', 'read'));
    reader.send(call('1', 'secrets', 'peek'));
    await settle();
    expect(reader.socket.take()).toEqual([refusal('1', 'insufficient_scope')]);
    expect(handle).not.toHaveBeenCalled();
  });
});

describe('calls', () => {
  const Send = v.object({ text: v.pipe(v.string(), v.minLength(1)) });
  function chatHub() {
    const handled: Array<{ data: unknown; who: Principal }> = [];
    const chat = new ChannelDomain('chat', {
      calls: {
        send: channelCall({
          data: Send,
          handle: (data, { principal }) => {
            handled.push({ data, who: principal });
            return { echoed: data.text.toUpperCase() };
          },
        }),
        history: { scope: 'read', handle: async () => [{ text: 'earlier' }] },
        clear: () => undefined,
        missing: () => {
          throw new ChannelCallError('not_found', 'No such session.');
        },
        broken: async () => {
          throw new Error('database gone');
        },
        unserialisable: () => ({ n: 1n }),
      },
    });
    return { ...makeHub([chat]), chat, handled };
  }

  it("a call is answered by its id with what the handler returned; the handler gets the validated data and the caller's principal", async () => {
    const { open, handled } = chatHub();
    const client = open();
    client.send(call('c1', 'chat', 'send', { text: 'hi', extra: 1 }));
    client.send(call('c2', 'chat', 'clear'));
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: 'c1', ok: true, data: { echoed: 'HI' } },
      { op: 'response', id: 'c2', ok: true },
    ]);
    expect(handled).toEqual([{ data: { text: 'hi' }, who: tokenPrincipal() }]);
  });

  it('invalid data is invalid_request naming the field, and the handler is not called', async () => {
    const { open, handled } = chatHub();
    const client = open();
    client.send(call('c1', 'chat', 'send', { text: 5 }));
    client.send(call('c2', 'chat', 'send'));
    await settle();
    const answers = client.socket.take();
    expect(answers).toEqual([refusal('c1', 'invalid_request'), refusal('c2', 'invalid_request')]);
    expect((answers[0] as { error: { message: string } }).error.message).toMatch(/^Invalid data at text: /);
    expect(handled).toEqual([]);
  });

  it("a call's scope defaults to admin: a read key may call only what is declared read", async () => {
    const { open, handled } = chatHub();
    const reader = open(keyPrincipal('board', 'read'));
    reader.send(call('c1', 'chat', 'send', { text: 'hi' }));
    reader.send(call('c2', 'chat', 'clear'));
    reader.send(call('c3', 'chat', 'history'));
    await settle();
    expect(reader.socket.take()).toEqual([
      refusal('c1', 'insufficient_scope'),
      refusal('c2', 'insufficient_scope'),
      { op: 'response', id: 'c3', ok: true, data: [{ text: 'earlier' }] },
    ]);
    expect(handled).toEqual([]);
  });

  it("a ChannelCallError is the handler's own code; anything else thrown is internal_error, logged, and the socket keeps working", async () => {
    const { open, logger } = chatHub();
    const client = open();
    client.send(call('c1', 'chat', 'missing'));
    client.send(call('c2', 'chat', 'broken'));
    client.send(call('c3', 'chat', 'unserialisable'));
    await settle();
    const answers = client.socket.take();
    expect(answers).toEqual([
      { op: 'response', id: 'c1', ok: false, error: { code: 'not_found', message: 'No such session.' } },
      refusal('c2', 'internal_error'),
      refusal('c3', 'internal_error'),
    ]);
    expect(JSON.stringify(answers)).not.toContain('database gone');
    expect(logger.text()).toContain('database gone');
    expect(logger.at('error')).toHaveLength(2);
    client.send({ op: 'ping' });
    expect(client.socket.take()).toEqual([{ op: 'pong', ts: NOW }]);
  });

  it('an unknown method is unknown_method; a domain without calls says it takes none; an unknown domain is unknown_domain', async () => {
    const bare: ChannelDomainPort = {
      name: 'status',
      scope: 'read',
      subscribe: () => ({ ok: true, listen: () => () => undefined }),
    };
    const { open } = makeHub([new ChannelDomain('chat'), bare]);
    const client = open();
    client.send(call('c1', 'chat', 'toString'));
    client.send(call('c2', 'status', 'get'));
    client.send(call('c3', 'weather', 'get'));
    await settle();
    // A domain's answer comes when its handler settles, the hub's own refusals at once: matched by id, not by order.
    const byId = client.socket.take().sort((x, y) => String((x as { id: string }).id).localeCompare((y as { id: string }).id));
    expect(byId).toEqual([refusal('c1', 'unknown_method'), refusal('c2', 'unknown_method'), refusal('c3', 'unknown_domain')]);
  });

  it("the dashboard's chat shape: a call's session reaches the handler, and an event can name the chat session it belongs to", async () => {
    const chat = new ChannelDomain('chat', {
      calls: {
        'message.send': (data, { session }) => {
          chat.publish('main', 'message', { text: String(data) }, { session: session ?? 'none' });
          return { session };
        },
      },
    });
    const { open } = makeHub([chat]);
    const client = open();
    client.send(subscribe('1', 'chat'));
    client.send({ ...call('2', 'chat', 'message.send', 'hi'), session: 's1' });
    await settle();
    expect(client.socket.texts.slice(-2)).toEqual([
      '{"op":"event","domain":"chat","topic":"main","session":"s1","event":"message","data":{"text":"hi"}}',
      '{"op":"response","id":"2","ok":true,"data":{"session":"s1"}}',
    ]);
  });

  it('the answer of a call whose socket closed meanwhile goes nowhere', async () => {
    let release: (value: string) => void = () => undefined;
    const chat = new ChannelDomain('chat', { calls: { slow: () => new Promise<string>((resolve) => (release = resolve)) } });
    const { open, hub } = makeHub([chat]);
    const client = open();
    client.send(call('c1', 'chat', 'slow'));
    await settle();
    client.close();
    release('late');
    await settle();
    expect(client.socket.take()).toEqual([]);
    expect(hub.size).toBe(0);
  });
});

describe('registering domains (mount errors at construction)', () => {
  const port = (name: string, extra: Partial<ChannelDomainPort> = {}): ChannelDomainPort => ({
    name,
    scope: 'read',
    subscribe: () => ({ ok: true, listen: () => () => undefined }),
    ...extra,
  });

  it.each([
    ['a duplicate', [port('chat'), port('chat')], 'cannot mount channel domain "chat": another domain has that name'],
    ['a built-in name', [port('logs')], 'cannot mount channel domain "logs": another domain has that name'],
    ['the reserved system', [port('system')], 'cannot mount channel domain "system": the name is reserved'],
    ['upper case', [port('Chat')], 'cannot mount channel domain "Chat": a name is a lowercase letter'],
    ['a leading digit', [port('1chat')], 'cannot mount channel domain "1chat"'],
    ['a dash', [port('chat-room')], 'cannot mount channel domain "chat-room"'],
    ['an empty name', [port('')], 'cannot mount channel domain ""'],
    ['65 characters', [port(`a${'b'.repeat(64)}`)], 'a name is a lowercase letter'],
    ['an unknown scope', [port('chat', { scope: 'write' as never })], "scope must be 'read' or 'admin'"],
    ['no topics', [port('chat', { topics: [] })], 'topics must be a non-empty list'],
  ])('%s is a MountError naming the domain', (_name, domains, message) => {
    expect(() => makeHub(domains)).toThrow(MountError);
    expect(() => makeHub(domains)).toThrow(message);
  });

  it('64 characters, digits and underscores are a name', () => {
    expect(() => makeHub([port(`a${'b_9'.repeat(21)}`)])).not.toThrow();
  });

  it('a ChannelDomain with a call that cannot be served is a MountError when it is made', () => {
    expect(() => new ChannelDomain('chat', { calls: { send: {} as never } })).toThrow(
      'cannot mount channel domain "chat": call "send" has no handle function',
    );
    expect(() => new ChannelDomain('chat', { calls: { send: { scope: 'root' as never, handle: () => 1 } } })).toThrow(MountError);
    expect(() => new ChannelDomain('chat', { topics: [''] })).toThrow(MountError);
  });
});

describe('subscriptionCounts', () => {
  it('counts open subscriptions by domain, every registered domain listed', () => {
    const { open, hub } = makeHub([
      new PluginProgressDomain(new PluginProgressBoard()),
      new ChannelDomain('chat', { topics: ['main', 'room2'] }),
    ]);
    expect(hub.subscriptionCounts()).toEqual({ logs: 0, plugin_progress: 0, chat: 0 });
    const a = open();
    const b = open();
    a.send(subscribe('1', 'logs'));
    a.send(subscribe('2', 'chat'));
    a.send(subscribe('3', 'chat', 'room2'));
    b.send(subscribe('4', 'chat'));
    b.send(subscribe('5', 'weather'));
    expect(hub.subscriptionCounts()).toEqual({ logs: 1, plugin_progress: 0, chat: 3 });
    a.close();
    expect(hub.subscriptionCounts()).toEqual({ logs: 0, plugin_progress: 0, chat: 1 });
    expect(hub.size).toBe(1);
  });
});

describe('the built-in security domain', () => {
  it('listens to the feed only while a socket is subscribed (the feed builds lines only for listeners)', () => {
    const feed = new SecurityFeed(() => NOW);
    const listen = vi.spyOn(feed, 'subscribe');
    const { open } = makeHub([new SecurityDomain(feed)]);
    const client = open(keyPrincipal('board', 'read'));
    expect(listen).not.toHaveBeenCalled();
    client.send(subscribe('1', 'security'));
    expect(listen).toHaveBeenCalledTimes(1);
    feed.record({ event: 'login_failed', address: '203.0.113.9', via: 'api', how: 'verify', counted: true, remaining: 4 });
    const events = client.socket.take().map((message) => (message as { event?: string }).event);
    expect(events).toEqual([undefined, 'snapshot', 'login_failed']);
    client.close();
    feed.record({ event: 'login_failed', address: '203.0.113.9', via: 'api', how: 'verify', counted: true, remaining: 3 });
    expect(client.socket.take()).toEqual([]);
    // The listener is gone: nothing builds lines for nobody.
    expect((feed as unknown as { listeners: Set<unknown> }).listeners.size).toBe(0);
  });
});

describe("the root README's channel section (issue 45)", () => {
  /** The frames of the README's channel example: `→` what a client sends, `←` what the server answers. */
  function readmeFrames(): { sent: unknown[]; answered: unknown[] } {
    const readme = readFileSync(fileURLToPath(new URL('../../../../../../README.md', import.meta.url)), 'utf8');
    const section = readme.split(/^## /m).find((part) => part.startsWith('The WebSocket channel\n'));
    if (section === undefined) throw new Error('README.md has no section "The WebSocket channel"');
    const lines = section.split('\n');
    const frames = (arrow: string) =>
      lines.filter((line) => line.startsWith(`${arrow} `)).map((line) => JSON.parse(line.slice(2)) as unknown);
    return { sent: frames('→'), answered: frames('←') };
  }

  it('documents a call, and the hub answers it as written: ok for the token, insufficient_scope for a read key', async () => {
    const { sent, answered } = readmeFrames();
    expect(sent).toEqual([expect.objectContaining({ op: 'call' })]);
    const chat = new ChannelDomain('chat', {
      calls: { send: channelCall({ data: v.object({ text: v.string() }), handle: ({ text }) => ({ reply: `Mai heard: ${text}` }) }) },
    });
    const { open } = makeHub([chat]);
    const [admin, reader] = [open(), open(keyPrincipal('board', 'read'))];
    for (const client of [admin, reader]) client.send(sent[0]);
    await settle();
    expect([...admin.socket.take(), ...reader.socket.take()]).toEqual(answered);
  });
});
