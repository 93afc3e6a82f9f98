import { describe, expect, it } from 'vitest';
import { ChannelDomain, CLOSE_TRY_AGAIN_LATER, MAX_BUFFERED_BYTES, SEND_BUFFER_FULL_REASON, type WsHubOptions } from '@webui/http-hono';
import { afterPublish, CAPS_RATE, capsHub, FakeClock, RecordingLogger, responses, settle, subscribeLogs } from '@webui/http-hono/testing';
import { FakeUpstream } from '../testing/fake-upstream.js';
import { upstreamChannelRelay } from './upstream-link.js';

/**
 * The hub's caps and domains with the relay behind it: moved from @webui/http-hono's ws-hub-caps and channel-domains tests,
 * the cases that configure an upstream.
 */

/** The caps tests' hub with the relay behind it, over a fake upstream whose relay logs to the hub's logger. */
function makeHub(options: Partial<Omit<WsHubOptions, 'logger'>> = {}) {
  const logger = new RecordingLogger();
  const upstream = new FakeUpstream();
  const relay = upstreamChannelRelay({
    channel: { upstream: upstream.options, openSocket: upstream.openSocket },
    logger,
    timers: new FakeClock(),
  });
  return { ...capsHub({ logger, relay, ...options }), upstream };
}

describe('WsHub with the relay: the send buffer cap and the subscribe rate', () => {
  it("the relay: the bot's events to a client that does not read close it with 1013, and its upstream socket with it", async () => {
    const { hub, upstream, open } = makeHub();
    const client = open();
    client.send({ op: 'subscribe', id: 'm', domain: 'maisaka_monitor', topic: 'main' });
    await settle();
    expect(responses(client.socket.take())).toEqual([expect.objectContaining({ id: 'm', ok: true })]);
    upstream.broadcast('maisaka_monitor', 'main', 'message', { text: 'seen' });
    expect(client.socket.take()).toHaveLength(1);
    client.socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    for (let i = 0; i < 100; i++) upstream.broadcast('maisaka_monitor', 'main', 'message', { text: `unread ${i}` });
    expect(client.socket.take()).toEqual([]);
    await afterPublish();
    expect(client.socket.closed).toEqual({ code: CLOSE_TRY_AGAIN_LATER, reason: SEND_BUFFER_FULL_REASON });
    expect(upstream.live).toEqual([]);
    expect(hub.capCounts().sendBufferFull).toBe(1);
  });

  it("the merged logs/main: the bot's lines and ours to a client that does not read close it, and nothing listens after", async () => {
    const { logs, upstream, open } = makeHub();
    const client = open();
    client.send(subscribeLogs('l'));
    await settle();
    expect(client.socket.take().map((envelope) => envelope.op)).toEqual(['response', 'event']);
    client.socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    upstream.broadcast('logs', 'main', 'entry', { entry: { id: 'bot-1', timestamp: '2026-01-01 00:00:00', level: 'INFO', message: 'x' } });
    await afterPublish();
    expect(client.socket.closed?.code).toBe(CLOSE_TRY_AGAIN_LATER);
    expect(logs.listenerCount).toBe(0);
    expect(upstream.live).toEqual([]);
  });

  it('relayed subscribes count against the same rate, and a refused one never reaches the bot', async () => {
    const { upstream, open } = makeHub();
    const client = open();
    for (let id = 1; id <= CAPS_RATE.burst + 1; id++) client.send({ op: 'subscribe', id, domain: 'maisaka_monitor', topic: 'main' });
    await settle();
    const answers = responses(client.socket.take());
    expect(answers.filter((envelope) => envelope.ok)).toHaveLength(CAPS_RATE.burst);
    expect(answers.find((envelope) => envelope.id === CAPS_RATE.burst + 1)).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(upstream.last.sentOf('subscribe', 'maisaka_monitor')).toHaveLength(CAPS_RATE.burst);
  });
});

describe('domains beside an upstream', () => {
  it("a registered domain is this server's own: served here, never relayed to the bot's channel", async () => {
    const chat = new ChannelDomain('chat', { calls: { open: () => ({ here: true }) } });
    const { open, upstream } = makeHub({ domains: [chat] });
    const client = open();
    client.send({ op: 'subscribe', id: '1', domain: 'chat', topic: 'main' });
    client.send({ op: 'call', id: '2', domain: 'chat', method: 'open' });
    await settle();
    expect(client.socket.take()).toEqual([
      { op: 'response', id: '1', ok: true, data: { domain: 'chat', topic: 'main' } },
      { op: 'response', id: '2', ok: true, data: { here: true } },
    ]);
    expect(upstream.sockets).toEqual([]);
    expect(upstream.ticketRequests).toEqual([]);
  });
});
