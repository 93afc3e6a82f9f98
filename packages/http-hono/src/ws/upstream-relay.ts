import type { AppLogger } from '../app-env.js';
import type { CallerIdentity, UpstreamChannelOptions, UpstreamSocket } from '../upstream/upstream-options.js';
import { MAX_BUFFERED_BYTES } from './send-buffer.js';
import {
  fetchUpstreamTicket,
  relayRequestHeaders,
  UPSTREAM_CHANNEL_PATH,
  upstreamChannelUrl,
  type UpstreamFailure,
} from './upstream-ticket.js';

export type RequestId = string | number;

/** The timers the relay and the merged log view wait with; tests pass a fake clock. */
export interface RelayTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_TIMERS: RelayTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The domains the hub serves itself when it has an upstream; every other one is the upstream's. */
export const HUB_DOMAINS: ReadonlySet<string> = new Set(['logs', 'security', 'system']);

export type RelayFailure = UpstreamFailure | 'upstream_busy';

export const RELAY_FAILURE_MESSAGES: Readonly<Record<RelayFailure, string>> = {
  upstream_unavailable: "The bot's backend cannot be reached; try again later.",
  upstream_refused: "The bot's backend refused this server's credential (webui.upstream.headers).",
  upstream_busy: "Too many messages are waiting for the bot's backend; try again.",
};

/** A client message the hub relays, as it parsed it; the relay sends the client's own text. */
export type RelayedMessage =
  { op: 'subscribe' | 'unsubscribe'; id: RequestId; domain: string; topic: string } | { op: 'call'; id: RequestId; domain: string };

/** How the relay reaches its client socket. */
export interface RelayHooks {
  /** A frame for the client, as the upstream sent it (or a local answer). */
  pass(text: string): void;
  /** The client's message `id` did not reach the upstream. */
  refuse(id: RequestId, code: RelayFailure, message: string): void;
  /** An event of the upstream's `logs` domain, for the merged log view. */
  logsEvent(event: string, data: unknown): void;
}

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

export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 30_000;
const MAX_QUEUED = 64;
/** Client messages awaiting the upstream's answer; beyond it the oldest are forgotten (their answer still passes). */
const MAX_IN_FLIGHT = 256;
/** Ids of the hub's own messages: their answers never reach the client. */
const OWN_ID_PREFIX = 'webui-relay-';

/** The delay before reconnect attempt `retries` (0-based): 1 s doubling to 30 s. */
export function retryDelayMs(retries: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.min(retries, 16), MAX_RETRY_MS);
}

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
  /** Sent again after a reconnect: "domain/topic" -> the last subscribe that the upstream took (or the hub's own). */
  private readonly remembered = new Map<string, { id: RequestId; text: string }>();
  /** Client messages sent and not yet answered; a subscribe is remembered once the upstream says ok. */
  private readonly inFlight = new Map<RequestId, { key?: string; text: string }>();
  /** Ids of re-sent subscriptions: the client had their answer long ago. */
  private readonly swallowed = new Set<RequestId>();
  private readonly ownAnswers = new Map<string, (ok: boolean) => void>();
  private nextOwnId = 1;
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
      const key = `${message.domain}/${message.topic}`;
      this.remembered.delete(key);
      for (const [pendingId, pending] of this.inFlight) if (pending.key === key) this.inFlight.delete(pendingId);
      // Nothing is subscribed upstream while it is down: answer here rather than open a socket only to unsubscribe.
      if (this.state === 'idle' || this.state === 'waiting') {
        this.options.hooks.pass(JSON.stringify({ op: 'response', id, ok: true, data: { domain: message.domain, topic: message.topic } }));
        return;
      }
    }
    const key = message.op === 'subscribe' ? `${message.domain}/${message.topic}` : undefined;
    this.track(id, key === undefined ? { text } : { key, text });
    this.enqueue({
      text,
      fail: (code) => {
        this.inFlight.delete(id);
        this.options.hooks.refuse(id, code, RELAY_FAILURE_MESSAGES[code]);
      },
    });
  }

  /** Subscribes the hub itself (the merged log view) and keeps the subscription across reconnects; `answered` once. */
  subscribeOwn(key: string, message: { domain: string; topic: string; data: unknown }, answered: (ok: boolean) => void): void {
    if (this.state === 'closed') return;
    const id = `${OWN_ID_PREFIX}${this.nextOwnId++}`;
    const text = JSON.stringify({ op: 'subscribe', id, ...message });
    this.remembered.set(key, { id, text });
    this.ownAnswers.set(id, answered);
    // Remembered subscriptions go out as the socket opens; while it waits to reconnect there is none to ask.
    if (this.state === 'open') this.sendNow(text, () => this.answerOwn(id, false));
    else if (this.state === 'idle') this.connect();
    else if (this.state === 'waiting') this.answerOwn(id, false);
  }

  unsubscribeOwn(key: string, message: { domain: string; topic: string }): void {
    const own = this.remembered.get(key);
    this.remembered.delete(key);
    if (own) this.ownAnswers.delete(String(own.id));
    if (this.state === 'open')
      this.sendNow(JSON.stringify({ op: 'unsubscribe', id: `${OWN_ID_PREFIX}${this.nextOwnId++}`, ...message, data: {} }));
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
    this.remembered.clear();
    this.inFlight.clear();
    this.ownAnswers.clear();
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

  private track(id: RequestId, pending: { key?: string; text: string }): void {
    this.inFlight.delete(id);
    this.inFlight.set(id, pending);
    if (this.inFlight.size > MAX_IN_FLIGHT) {
      const oldest = this.inFlight.keys().next();
      if (!oldest.done) this.inFlight.delete(oldest.value);
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
    for (const { id, text } of this.remembered.values()) {
      if (!isOwnId(id)) this.swallowed.add(id);
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
    const unanswered = [...this.inFlight.keys()];
    this.inFlight.clear();
    this.swallowed.clear();
    for (const id of unanswered) this.options.hooks.refuse(id, 'upstream_unavailable', RELAY_FAILURE_MESSAGES.upstream_unavailable);
    this.failOwnAnswers();
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
    this.failOwnAnswers();
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
    if (this.remembered.size === 0) return this.goIdle();
    this.state = 'waiting';
    const delay = retryDelayMs(this.retries++);
    this.timer = this.options.timers.setTimeout(() => {
      this.timer = null;
      // Unsubscribed meanwhile: nothing to restore, the next message connects.
      if (this.state === 'waiting') return this.remembered.size > 0 ? this.connect() : this.goIdle();
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
      if (typeof id === 'string' && isOwnId(id)) return this.answerOwn(id, ok === true);
      if ((typeof id === 'string' || typeof id === 'number') && this.answered(id, ok === true)) return;
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

  /** Settles a client message's answer; true when the client must not see it (a re-sent subscription's). */
  private answered(id: RequestId, ok: boolean): boolean {
    if (this.swallowed.delete(id)) return true;
    const pending = this.inFlight.get(id);
    if (!pending) return false;
    this.inFlight.delete(id);
    if (pending.key !== undefined && ok) this.remembered.set(pending.key, { id, text: pending.text });
    return false;
  }

  private answerOwn(id: string, ok: boolean): void {
    const answer = this.ownAnswers.get(id);
    this.ownAnswers.delete(id);
    answer?.(ok);
  }

  private failOwnAnswers(): void {
    const answers = [...this.ownAnswers.values()];
    this.ownAnswers.clear();
    for (const answer of answers) answer(false);
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

function isOwnId(id: RequestId): boolean {
  return typeof id === 'string' && id.startsWith(OWN_ID_PREFIX);
}
