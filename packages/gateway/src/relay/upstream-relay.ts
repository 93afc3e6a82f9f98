import type { AppLogger } from '@webui/http-hono';
import type { CallerIdentity, UpstreamChannelOptions, UpstreamSocket } from '../upstream-options.js';
import { MAX_BUFFERED_BYTES } from '@webui/http-hono';
import { isOwnId, RelayLedger } from './relay-ledger.js';
import { HUB_DOMAINS, type RelayedMessage } from '@webui/http-hono';
import { RELAY_FAILURE_MESSAGES, type RelayFailure, type RelayHooks } from './relay-messages.js';
import { retryDelayMs, type RelayTimers } from './relay-timers.js';
import {
  fetchUpstreamTicket,
  relayRequestHeaders,
  UPSTREAM_CHANNEL_PATH,
  upstreamChannelUrl,
  type UpstreamFailure,
} from './upstream-ticket.js';

export interface RelayOptions {
  channel: UpstreamChannelOptions;
  /** The client this link serves: the upstream is told it on the ticket's request and the socket's handshake. */
  identity: CallerIdentity;
  hooks: RelayHooks;
  logger: AppLogger;
  timers: RelayTimers;
  /** Messages held while the socket connects; more are refused with upstream_busy. */
  maxQueued?: number;
  /** How long the ticket and the socket's opening may take together. */
  connectTimeoutMs?: number;
}

const MAX_QUEUED = 64;

type State = 'idle' | 'connecting' | 'open' | 'waiting' | 'closed';

interface Outgoing {
  text: string;
  fail(code: RelayFailure): void;
}

const decoder = new TextDecoder();

/**
 * One client socket's link to the upstream's channel (issue 33): opened on first need with a fresh ticket, relaying the
 * client's messages unchanged, reopened with back-off after a drop while the client stays, its subscriptions sent again.
 */
export class UpstreamRelay {
  private state: State = 'idle';
  private socket: UpstreamSocket | null = null;
  private queue: Outgoing[] = [];
  private readonly ledger = new RelayLedger();
  private retries = 0;
  private attempt = 0;
  private timer: unknown = null;
  private abort: AbortController | null = null;
  private readonly maxQueued: number;
  private readonly connectTimeoutMs: number;

  constructor(private readonly options: RelayOptions) {
    this.maxQueued = options.maxQueued ?? MAX_QUEUED;
    this.connectTimeoutMs = options.connectTimeoutMs ?? Math.min(options.channel.upstream.timeoutMs, 10_000);
  }

  /** Relays a client's subscribe, unsubscribe or call; its answer comes back by id. */
  forward(message: RelayedMessage, text: string): void {
    if (this.state === 'closed') return;
    const { id } = message;
    if (message.op === 'unsubscribe') {
      this.ledger.forgetClient(`${message.domain}/${message.topic}`);
      // Nothing is subscribed upstream while it is down: answer here rather than open a socket only to unsubscribe.
      if (this.state === 'idle' || this.state === 'waiting') {
        this.options.hooks.pass(JSON.stringify({ op: 'response', id, ok: true, data: { domain: message.domain, topic: message.topic } }));
        return;
      }
    }
    const key = message.op === 'subscribe' ? `${message.domain}/${message.topic}` : undefined;
    this.ledger.track(id, key === undefined ? { text } : { key, text });
    this.enqueue({
      text,
      fail: (code) => {
        this.ledger.inFlight.delete(id);
        this.options.hooks.refuse(id, code, RELAY_FAILURE_MESSAGES[code]);
      },
    });
  }

  /** Subscribes the hub itself (the merged log view) and keeps the subscription across reconnects; `answered` once. */
  subscribeOwn(key: string, message: { domain: string; topic: string; data: unknown }, answered: (ok: boolean) => void): void {
    if (this.state === 'closed') return;
    const id = this.ledger.ownId();
    const text = JSON.stringify({ op: 'subscribe', id, ...message });
    this.ledger.rememberOwn(key, id, text, answered);
    // Remembered subscriptions go out as the socket opens; while it waits to reconnect there is none to ask.
    if (this.state === 'open') this.sendNow(text, () => this.ledger.answerOwn(id, false));
    else if (this.state === 'idle') this.connect();
    else if (this.state === 'waiting') this.ledger.answerOwn(id, false);
  }

  unsubscribeOwn(key: string, message: { domain: string; topic: string }): void {
    this.ledger.forgetOwn(key);
    if (this.state === 'open') this.sendNow(JSON.stringify({ op: 'unsubscribe', id: this.ledger.ownId(), ...message, data: {} }));
  }

  /** The client's socket is gone (closed, failed, or revoked with 4001): the upstream socket goes with it. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.clearTimer();
    this.abort?.abort();
    this.abort = null;
    this.closeSocket();
    this.queue = [];
    this.ledger.clear();
  }

  private enqueue(item: Outgoing): void {
    switch (this.state) {
      case 'open':
        // A bot that does not read must not make this server hold a client's messages for it without bound.
        if ((this.socket?.bufferedAmount ?? 0) > MAX_BUFFERED_BYTES) return item.fail('upstream_busy');
        return this.sendNow(item.text, () => item.fail('upstream_unavailable'));
      case 'connecting':
        if (this.queue.length >= this.maxQueued) return item.fail('upstream_busy');
        this.queue.push(item);
        return;
      case 'idle':
        this.queue.push(item);
        return this.connect();
      case 'waiting':
        return item.fail('upstream_unavailable');
      case 'closed':
        return;
    }
  }

  private sendNow(text: string, onFailure?: () => void): void {
    try {
      this.socket?.send(text);
    } catch {
      onFailure?.();
    }
  }

  private connect(): void {
    this.state = 'connecting';
    const attempt = ++this.attempt;
    const abort = new AbortController();
    this.abort = abort;
    this.timer = this.options.timers.setTimeout(() => {
      abort.abort();
      if (this.isCurrent(attempt)) this.failed('upstream_unavailable');
    }, this.connectTimeoutMs);
    void fetchUpstreamTicket(this.options.channel.upstream, this.options.identity, abort.signal)
      .then((result) => {
        if (!this.isCurrent(attempt)) return;
        if (result.ok) this.openSocket(result.ticket);
        else this.failed(result.failure);
      })
      .catch(() => {
        if (this.isCurrent(attempt)) this.failed('upstream_unavailable');
      });
  }

  private isCurrent(attempt: number): boolean {
    return attempt === this.attempt && this.state === 'connecting';
  }

  private openSocket(ticket: string): void {
    const { upstream, openSocket } = this.options.channel;
    let socket: UpstreamSocket;
    try {
      socket = openSocket(
        upstreamChannelUrl(upstream.origin, ticket),
        relayRequestHeaders(upstream, this.options.identity, UPSTREAM_CHANNEL_PATH),
      );
    } catch {
      return this.failed('upstream_unavailable');
    }
    this.socket = socket;
    socket.addEventListener('open', () => {
      if (this.socket === socket && this.state === 'connecting') this.opened();
    });
    socket.addEventListener('message', (event) => {
      if (this.socket === socket && this.state === 'open') this.receive(event.data);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket === socket) this.dropped(event.code);
    });
    socket.addEventListener('error', () => {
      if (this.socket === socket) this.dropped();
    });
  }

  private opened(): void {
    this.clearTimer();
    this.abort = null;
    this.state = 'open';
    this.retries = 0;
    // The remembered subscriptions first: a queued unsubscribe must come after the subscribe it undoes.
    for (const { id, text } of this.ledger.remembered.values()) {
      if (!isOwnId(id)) this.ledger.swallowed.add(id);
      this.sendNow(text);
    }
    const queued = this.queue;
    this.queue = [];
    for (const item of queued) this.sendNow(item.text, () => item.fail('upstream_unavailable'));
  }

  /** The socket closed or failed: before it opened, the connection failed; after, it dropped. */
  private dropped(code?: number): void {
    if (this.state === 'connecting') return this.failed(code === 4001 ? 'upstream_refused' : 'upstream_unavailable');
    if (this.state !== 'open') return;
    this.closeSocket();
    // Nothing answers what was in flight any more: the client hears so now rather than after its own timeout.
    const unanswered = [...this.ledger.inFlight.keys()];
    this.ledger.inFlight.clear();
    this.ledger.swallowed.clear();
    for (const id of unanswered) this.options.hooks.refuse(id, 'upstream_unavailable', RELAY_FAILURE_MESSAGES.upstream_unavailable);
    this.ledger.failOwnAnswers();
    this.options.logger.warn({ code: code ?? null }, "the bot's channel closed under a client");
    this.retryOrIdle();
  }

  private failed(failure: UpstreamFailure): void {
    this.clearTimer();
    this.abort = null;
    this.closeSocket();
    const queued = this.queue;
    this.queue = [];
    for (const item of queued) item.fail(failure);
    this.ledger.failOwnAnswers();
    const line =
      failure === 'upstream_refused'
        ? "the bot's backend refused this server's credential for its channel"
        : "the bot's channel cannot be reached";
    // Once per outage at warn; the back-off's further attempts at debug.
    if (this.retries === 0) this.options.logger.warn({ code: failure }, line);
    else this.options.logger.debug({ code: failure, retries: this.retries }, line);
    this.retryOrIdle();
  }

  /** With subscriptions to restore, try again after the back-off; without, the next message connects. */
  private retryOrIdle(): void {
    if (this.state === 'closed') return;
    if (this.ledger.remembered.size === 0) return this.goIdle();
    this.state = 'waiting';
    const delay = retryDelayMs(this.retries++);
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = null;
      // Unsubscribed meanwhile: nothing to restore, the next message connects.
      if (this.state === 'waiting') return this.ledger.remembered.size > 0 ? this.connect() : this.goIdle();
    }, delay);
  }

  private goIdle(): void {
    this.state = 'idle';
    this.retries = 0;
  }

  private receive(data: unknown): void {
    const text = typeof data === 'string' ? data : data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? decoder.decode(data) : null;
    if (text === null) return;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return;
    const { op, id, ok, domain, event, data: eventData } = frame as Record<string, unknown>;
    if (op === 'response') {
      if (typeof id === 'string' && isOwnId(id)) return this.ledger.answerOwn(id, ok === true);
      if ((typeof id === 'string' || typeof id === 'number') && this.ledger.answered(id, ok === true)) return;
      return this.options.hooks.pass(text);
    }
    // The upstream's system events (its ready) and pongs are its own; the hub answers the client's pings itself.
    if (op !== 'event' || typeof domain !== 'string') return;
    if (domain === 'logs') {
      if (typeof event === 'string') this.options.hooks.logsEvent(event, eventData);
      return;
    }
    if (!HUB_DOMAINS.has(domain)) this.options.hooks.pass(text);
  }

  private closeSocket(): void {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    try {
      socket.close(1000, 'client gone');
    } catch (error) {
      this.options.logger.debug({ err: String(error) }, "closing the bot's channel failed");
    }
  }

  private clearTimer(): void {
    if (this.timer !== null) this.options.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
