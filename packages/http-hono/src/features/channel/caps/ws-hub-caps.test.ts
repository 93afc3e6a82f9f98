import { describe, expect, it } from 'vitest';
import { afterPublish, CAPS_RATE, capsHub, responses, subscribeLogs } from '../../../testing/caps-hub.js';
import { settle } from '../../../testing/ws-doubles.js';
import { MAX_BUFFERED_BYTES, SEND_BUFFER_FULL_REASON } from './send-buffer.js';
import { CLOSE_POLICY_VIOLATION, REQUEST_FLOOD_REASON } from './socket-caps.js';
import { CLOSE_TOKEN_CHANGED, CLOSE_TRY_AGAIN_LATER } from '../hub/ws-hub.js';

/**
 * What one socket may cost (issue 42, item 2): the bytes it holds unsent and how fast it subscribes. The runtime's
 * measure is the double's `bufferedAmount`, which a test sets as a client that does not read would make it grow.
 */

describe('WsHub: the send buffer cap', () => {
  it('past MAX_BUFFERED_BYTES unsent, the next message is not sent and the socket closes with 1013 and why, counted', async () => {
    const { hub, logs, logger, open } = capsHub();
    const client = open();
    client.send(subscribeLogs(1));
    expect(client.socket.take()).toHaveLength(2);
    client.socket.bufferedAmount = MAX_BUFFERED_BYTES;
    logs.log('at the cap: still sent');
    expect(client.socket.take()).toHaveLength(1);
    client.socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    logs.log('past the cap');
    logs.log('and one more');
    expect(client.socket.take()).toEqual([]);
    await afterPublish();
    expect(client.socket.closed).toEqual({ code: CLOSE_TRY_AGAIN_LATER, reason: SEND_BUFFER_FULL_REASON });
    expect(hub.size).toBe(0);
    expect(logs.listenerCount).toBe(0);
    expect(hub.capCounts()).toEqual({ sendBufferFull: 1, requestFlood: 0, rateLimited: 0 });
    expect(logger.at('warn')).toEqual([
      {
        level: 'warn',
        fields: { connection: 'conn-1', code: 1013, reason: SEND_BUFFER_FULL_REASON },
        message: 'a WebSocket was closed at its cap',
      },
    ]);
  });

  it('the cap is a hub option; a message bigger than it still goes to a socket that holds nothing', () => {
    const { logs, open } = capsHub({ caps: { maxBufferedBytes: 16 } });
    logs.log('x'.repeat(1_000));
    const client = open();
    client.send(subscribeLogs(1));
    expect(client.socket.take().map((envelope) => envelope.op)).toEqual(['response', 'event']);
    expect(client.socket.closed).toBeNull();
  });

  it('a socket past the cap in the middle of a publish: the others still get it, and its subscription ends with it', async () => {
    const { hub, logs, open } = capsHub();
    const [slow, fast] = [open(), open()];
    slow.send(subscribeLogs(1));
    fast.send(subscribeLogs(1));
    slow.socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    slow.socket.take();
    fast.socket.take();
    logs.log('to both');
    await afterPublish();
    expect(slow.socket.closed?.code).toBe(CLOSE_TRY_AGAIN_LATER);
    expect(fast.socket.take()).toEqual([expect.objectContaining({ op: 'event', event: 'entry' })]);
    expect(fast.socket.closed).toBeNull();
    expect(hub.size).toBe(1);
    expect(logs.listenerCount).toBe(1);
  });

  it('a socket capped while it subscribes keeps no subscription', async () => {
    const { logs, open } = capsHub();
    const client = open();
    client.socket.bufferedAmount = MAX_BUFFERED_BYTES + 1;
    client.send(subscribeLogs(1));
    client.send(subscribeLogs(2));
    await afterPublish();
    expect(client.socket.closed?.code).toBe(CLOSE_TRY_AGAIN_LATER);
    expect(logs.listenerCount).toBe(0);
  });

  it('a measure that throws counts as an empty buffer: the message goes, nothing is thrown at the sender', () => {
    const { logger, open } = capsHub({
      caps: {
        bufferedBytes: () => {
          throw new Error('socket released');
        },
      },
    });
    const client = open();
    client.send({ op: 'ping' });
    expect(client.socket.take()).toEqual([{ op: 'pong', ts: expect.any(Number) }]);
    expect(client.socket.closed).toBeNull();
    expect(logger.at('warn')).toEqual([]);
    expect(logger.at('error')).toEqual([]);
  });

  it('a runtime that cannot tell what a socket holds: said once at warn, and messages still go', () => {
    const { logger, logs, open } = capsHub({ caps: { bufferedBytes: () => undefined } });
    const [a, b] = [open(), open()];
    a.send(subscribeLogs(1));
    b.send(subscribeLogs(1));
    logs.log('sent anyway');
    expect(a.socket.sent.at(-1)).toMatchObject({ event: 'entry' });
    expect(b.socket.sent.at(-1)).toMatchObject({ event: 'entry' });
    expect(logger.at('warn').map((call) => call.message)).toEqual([
      'this runtime does not tell how much a WebSocket holds unsent: the send buffer cap is off',
    ]);
  });
});

describe('WsHub: the subscribe rate', () => {
  it('past the burst a subscribe or unsubscribe is answered rate_limited; far past it the socket is closed with 1008, counted', () => {
    const { hub, logs, logger, open } = capsHub();
    const client = open();
    for (let id = 1; id <= CAPS_RATE.burst; id++) client.send(subscribeLogs(id));
    expect(responses(client.socket.take()).every((envelope) => envelope.ok)).toBe(true);
    client.send({ op: 'unsubscribe', id: 'u', domain: 'logs', topic: 'main' });
    client.send(subscribeLogs('s'));
    expect(client.socket.take()).toEqual([
      {
        op: 'response',
        id: 'u',
        ok: false,
        error: { code: 'rate_limited', message: expect.stringMatching(/at most 1 a second after the first 3/) },
      },
      { op: 'response', id: 's', ok: false, error: { code: 'rate_limited', message: expect.any(String) } },
    ]);
    // A ping is not counted, and the subscription still stands.
    client.send({ op: 'ping' });
    logs.log('still subscribed');
    expect(client.socket.take().map((envelope) => envelope.op)).toEqual(['pong', 'event']);
    client.send(subscribeLogs('s2'));
    client.send(subscribeLogs('s3'));
    expect(client.socket.closed).toEqual({ code: CLOSE_POLICY_VIOLATION, reason: REQUEST_FLOOD_REASON });
    expect(hub.size).toBe(0);
    expect(logs.listenerCount).toBe(0);
    expect(hub.capCounts()).toEqual({ sendBufferFull: 0, requestFlood: 1, rateLimited: 3 });
    expect(logger.at('warn')).toEqual([
      expect.objectContaining({ fields: { connection: 'conn-1', code: 1008, reason: REQUEST_FLOOD_REASON } }),
    ]);
  });

  it('what a socket sends after the hub closed it is not handled: nothing subscribes for it', () => {
    const { hub, logs, open } = capsHub();
    const client = open();
    hub.revokeSession('session-a');
    expect(client.socket.closed?.code).toBe(CLOSE_TOKEN_CHANGED);
    // Its close frame is on its way; the runtime still hands over what came before it.
    client.socket.readyState = 1;
    client.send(subscribeLogs('late'));
    expect(client.socket.take()).toEqual([]);
    expect(logs.listenerCount).toBe(0);
  });

  it('a client that waits gets its requests back; each socket has its own bucket', () => {
    const { time, open } = capsHub();
    const [first, second] = [open(), open()];
    for (let id = 1; id <= CAPS_RATE.burst + 1; id++) first.send(subscribeLogs(id));
    expect(responses(first.socket.take()).at(-1)).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    second.send(subscribeLogs(1));
    expect(responses(second.socket.take())).toEqual([expect.objectContaining({ ok: true })]);
    time.now += 2_000;
    first.send(subscribeLogs('again'));
    expect(responses(first.socket.take())).toEqual([expect.objectContaining({ id: 'again', ok: true })]);
  });
});
