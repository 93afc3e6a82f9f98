import type { Principal } from '@webui/core';
import { errorMessage } from '@webui/core/adapter';
import type { WSContext, WSEvents } from 'hono/ws';
import * as v from 'valibot';
import type { AppLogger } from '../app-env.js';
import { callerIdentity, type UpstreamChannelOptions } from '../upstream/upstream-options.js';
import type { ChannelDomainPort, ChannelEventOptions, ChannelRefusal, ChannelSubscription } from './channel-domain-port.js';
import { coversScope, insufficientScope, relayedScope } from './channel-scope.js';
import { domainRegistry } from './domain-registry.js';
import { ClientMessage, type ServerEnvelope } from './envelopes.js';
import type { LogSource } from './log-source.js';
import { LogsDomain, replayOf } from './logs-domain.js';
import { MergedLogView } from './merged-log-view.js';
import { HUB_DOMAINS, SYSTEM_TIMERS, UpstreamRelay, type RelayTimers } from './upstream-relay.js';
import type { RequestRate } from './request-rate.js';
import { SEND_BUFFER_FULL_REASON } from './send-buffer.js';
import { CLOSE_POLICY_VIOLATION, REQUEST_FLOOD_REASON, SocketCaps, type SocketCapCounts, type SocketCapOptions } from './socket-caps.js';

/** The largest message a client may send; bigger ones close the socket with 1009. The runtime's socket enforces it too. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
export const CLOSE_TOKEN_CHANGED = 4001;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_MESSAGE_TOO_BIG = 1009;
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** Why a session's sockets close with 4001: the close reason a client shows. */
export type SessionEnd = 'token_changed' | 'key_revoked';
export const SESSION_END_REASONS: Record<SessionEnd, string> = { token_changed: 'access token changed', key_revoked: 'API key revoked' };

export interface WsHubOptions {
  /** This server's log lines: the built-in `logs` domain, always registered first (merged with the bot's with an upstream). */
  logs: LogSource;
  /**
   * The other domains, in the order `unknown_topic` lists them: the built-in plugin_progress (not with an upstream, where it is
   * the bot's) and security, and a bot's own. A name taken, reserved (`system`) or malformed is a MountError here.
   */
  domains?: readonly ChannelDomainPort[];
  logger: AppLogger;
  now: () => number;
  newConnectionId: () => string;
  maxPerSession?: number;
  maxTotal?: number;
  maxMessageBytes?: number;
  /** The bot's own backend (issue 33): its domains are relayed to its channel, and its log lines join ours. */
  upstream?: UpstreamChannelOptions;
  /** What the relay's back-off and the merged log view wait with; tests pass a fake clock. */
  timers?: RelayTimers;
  /** How long a logs/main snapshot waits for the bot's entries before it goes out with ours only (2 s). */
  upstreamLogsWaitMs?: number;
  /** What one socket may hold unsent and how fast it may subscribe (issue 42); the runtime brings its measure here. */
  caps?: SocketCapOptions;
}

interface Connection {
  id: string;
  /** Who opened it (from its ticket): what it may subscribe to and call; its session is what revocation closes. */
  principal: Principal;
  socket: WSContext;
  /** Unsubscribe functions by "domain/topic". */
  subscriptions: Map<string, () => void>;
  /** With an upstream, made on first need: the link to its channel and the merged logs/main. */
  upstream?: { relay: UpstreamRelay; logs: MergedLogView };
  /** Its subscribes and unsubscribes, against SUBSCRIBE_RATE. */
  requests: RequestRate;
  /** A cap closes it: nothing more is sent or handled while the close waits for the publish under way to end. */
  capped: boolean;
}

const LOGS_MAIN = 'logs/main';

/**
 * The unified WebSocket channel (docs/decisions/0013-websocket-channel.md): system events and the registered domains (logs, plugin progress, security,
 * a bot's own; issue 34); with an upstream (issue 33), every other domain relayed to the bot's channel and its log lines
 * merged into ours.
 */
export class WsHub {
  private readonly connections = new Set<Connection>();
  private readonly closingSockets = new Set<Connection>();
  private readonly domains: ReadonlyMap<string, ChannelDomainPort>;
  private readonly maxPerSession: number;
  private readonly maxTotal: number;
  private readonly maxMessageBytes: number;
  private readonly caps: SocketCaps;

  constructor(private readonly options: WsHubOptions) {
    this.domains = domainRegistry([new LogsDomain(options.logs), ...(options.domains ?? [])]);
    this.caps = new SocketCaps(options.caps ?? {}, options.now, options.logger);
    this.maxPerSession = options.maxPerSession ?? 256;
    this.maxTotal = options.maxTotal ?? 1024;
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  get size(): number {
    return this.connections.size;
  }

  /** Sockets this hub closed whose runtime has not yet reported them closed: their close frame may still be on its way. */
  get closing(): number {
    return this.closingSockets.size;
  }

  /** Sockets closed and requests refused for a cap since the start. */
  capCounts(): Readonly<SocketCapCounts> {
    return this.caps.counts;
  }

  /** Open subscriptions to this hub's own domains, by domain (relayed ones are the bot's to count). */
  subscriptionCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const name of this.domains.keys()) counts[name] = 0;
    for (const connection of this.connections) {
      for (const key of connection.subscriptions.keys()) {
        const name = key.slice(0, key.indexOf('/'));
        counts[name] = (counts[name] ?? 0) + 1;
      }
      if (connection.upstream?.logs.subscribed) counts['logs'] = (counts['logs'] ?? 0) + 1;
    }
    return counts;
  }

  /** Whether one more socket fits the caps that keep memory bounded (docs/decisions/0014-bounded-memory.md). */
  canAccept(sessionToken: string): boolean {
    if (this.connections.size >= this.maxTotal) return false;
    let ofSession = 0;
    for (const connection of this.connections) if (connection.principal.session === sessionToken) ofSession++;
    return ofSession < this.maxPerSession;
  }

  /** The event handlers of one socket opened with a ticket of `principal`'s session. */
  events(principal: Principal): WSEvents {
    const connection: Connection = {
      id: this.options.newConnectionId(),
      principal,
      socket: undefined as unknown as WSContext,
      subscriptions: new Map(),
      requests: this.caps.requestRate(),
      capped: false,
    };
    return {
      onOpen: (_event, socket) => {
        connection.socket = socket;
        if (!this.canAccept(principal.session)) {
          socket.close(CLOSE_TRY_AGAIN_LATER, 'too many connections');
          return;
        }
        this.connections.add(connection);
        this.send(connection, {
          op: 'event',
          domain: 'system',
          event: 'ready',
          data: { connection_id: connection.id, timestamp: this.options.now() },
        });
      },
      onMessage: (event) => {
        // A socket refused, dropped or capped is not listened to: a subscribe now would outlive it.
        if (connection.capped || !this.connections.has(connection)) return;
        // No message may escape as an exception: the runtime adapter would drop it unanswered or crash.
        try {
          this.receive(connection, event.data);
        } catch (error) {
          this.options.logger.error({ err: errorMessage(error) }, 'a WebSocket message could not be handled');
          this.fail(connection, null, 'internal_error', 'The message could not be handled.');
        }
      },
      onClose: () => this.closed(connection),
      onError: () => this.closed(connection),
    };
  }

  /** Closes every socket opened under a session that is no longer valid (the old token, or a revoked key's), with 4001 and why. */
  revokeSession(sessionToken: string, why: SessionEnd = 'token_changed'): void {
    for (const connection of [...this.connections]) {
      if (connection.principal.session === sessionToken) this.close(connection, CLOSE_TOKEN_CHANGED, SESSION_END_REASONS[why]);
    }
  }

  closeAll(code: number, reason: string): void {
    for (const connection of [...this.connections]) this.close(connection, code, reason);
  }

  private receive(connection: Connection, data: unknown): void {
    const text = typeof data === 'string' ? data : null;
    if (text === null) {
      if (binarySize(data) > this.maxMessageBytes) return this.close(connection, CLOSE_MESSAGE_TOO_BIG, 'message too big');
      return this.fail(connection, null, 'unsupported_message', 'Send JSON text messages.');
    }
    if (text.length > this.maxMessageBytes || utf8Length(text) > this.maxMessageBytes)
      return this.close(connection, CLOSE_MESSAGE_TOO_BIG, 'message too big');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return this.fail(connection, null, 'invalid_json', 'The message is not valid JSON.');
    }
    const id = requestIdOf(raw);
    const parsed = v.safeParse(ClientMessage, raw);
    if (!parsed.success) {
      const op = typeof raw === 'object' && raw !== null ? (raw as { op?: unknown }).op : undefined;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        return this.fail(connection, id, 'invalid_message', 'A message is a JSON object with an "op".');
      if (op !== 'ping' && op !== 'subscribe' && op !== 'unsubscribe' && op !== 'call')
        return this.fail(connection, id, 'unknown_op', `Unknown op ${describeOp(op)}.`);
      return this.fail(
        connection,
        id,
        'invalid_message',
        `Invalid ${String(op)} message: ${parsed.issues[0]?.message ?? 'unexpected shape'}.`,
      );
    }
    const message = parsed.output;
    if (message.op === 'ping') return this.send(connection, { op: 'pong', ts: this.options.now() });
    if ((message.op === 'subscribe' || message.op === 'unsubscribe') && !this.admitted(connection, message.id)) return;
    if (this.relays(message.domain)) return this.relay(connection, message, text);
    switch (message.op) {
      case 'call':
        return this.call(connection, message);
      case 'subscribe':
        return this.subscribe(connection, message);
      case 'unsubscribe': {
        const key = `${message.domain}/${message.topic}`;
        if (key === LOGS_MAIN) connection.upstream?.logs.unsubscribe();
        connection.subscriptions.get(key)?.();
        connection.subscriptions.delete(key);
        return this.send(connection, { op: 'response', id: message.id, ok: true, data: { domain: message.domain, topic: message.topic } });
      }
    }
  }

  /** Whether a domain is the upstream's: with one, every domain but logs, security, system and the registered ones. */
  private relays(domain: string): boolean {
    return this.options.upstream !== undefined && !HUB_DOMAINS.has(domain) && !this.domains.has(domain);
  }

  /** A relayed domain is held to a mounted one's scope rule; refused, nothing reaches the upstream (no socket is even opened). */
  private relay(connection: Connection, message: Exclude<ClientMessage, { op: 'ping' }>, text: string): void {
    const scope = relayedScope(message.op);
    if (!coversScope(connection.principal, scope)) {
      const domain = JSON.stringify(message.domain).slice(0, 100);
      const what = message.op === 'call' ? `A call on the ${domain} domain` : `The ${domain} domain`;
      return this.refuse(connection, message.id, insufficientScope(what, scope));
    }
    // The client's own text goes upstream: the relay changes nothing in it.
    this.upstreamOf(connection)?.relay.forward(message, text);
  }

  /** The connection's link to the upstream, made on first need; none for a socket already dropped (no socket may leak). */
  private upstreamOf(connection: Connection): Connection['upstream'] {
    const channel = this.options.upstream;
    if (!channel || !this.connections.has(connection)) return undefined;
    if (connection.upstream) return connection.upstream;
    const timers = this.options.timers ?? SYSTEM_TIMERS;
    const relay: UpstreamRelay = new UpstreamRelay({
      channel,
      identity: callerIdentity(connection.principal),
      logger: this.options.logger,
      timers,
      hooks: {
        pass: (text) => this.sendText(connection, text),
        refuse: (id, code, message) => this.fail(connection, id, code, message),
        logsEvent: (event, data) => logs.upstreamEvent(event, data),
      },
    });
    const logs: MergedLogView = new MergedLogView({
      logs: this.options.logs,
      relay,
      send: (envelope) => this.send(connection, envelope),
      timers,
      now: this.options.now,
      ...(this.options.upstreamLogsWaitMs === undefined ? {} : { waitMs: this.options.upstreamLogsWaitMs }),
    });
    connection.upstream = { relay, logs };
    return connection.upstream;
  }

  private subscribe(connection: Connection, message: Extract<ClientMessage, { op: 'subscribe' }>): void {
    const { id, domain: name, topic } = message;
    const key = `${name}/${topic}`;
    const domain = this.domains.get(name);
    if (!domain || (domain.topics !== undefined && !domain.topics.includes(topic)))
      return this.fail(
        connection,
        id,
        'unknown_topic',
        `No topic ${JSON.stringify(key).slice(0, 100)}; available: ${this.availableTopics()}.`,
      );
    if (!coversScope(connection.principal, domain.scope))
      return this.refuse(connection, id, insufficientScope(`The "${name}" domain`, domain.scope));
    // With an upstream the snapshot merges the bot's entries, which take a moment to arrive.
    if (key === LOGS_MAIN && this.options.upstream) return this.subscribeMergedLogs(connection, id, message.data);
    let subscription: ChannelRefusal | ChannelSubscription;
    try {
      subscription = domain.subscribe({ topic, data: message.data, principal: connection.principal });
    } catch (error) {
      return this.failed(connection, id, `the ${name} domain's subscribe failed`, error);
    }
    if (!subscription.ok) return this.refuse(connection, id, subscription);
    connection.subscriptions.get(key)?.();
    connection.subscriptions.delete(key);
    this.send(connection, { op: 'response', id, ok: true, data: { domain: name, topic } });
    const { snapshot } = subscription;
    if (snapshot) this.sendEvent(connection, name, topic, snapshot.event, snapshot.data);
    connection.subscriptions.set(
      key,
      subscription.listen((event, data, options) => this.sendEvent(connection, name, topic, event, data, options)),
    );
  }

  private subscribeMergedLogs(connection: Connection, id: string | number, data: unknown): void {
    const replay = replayOf(data);
    if (!replay.ok) return this.refuse(connection, id, replay);
    this.send(connection, { op: 'response', id, ok: true, data: { domain: 'logs', topic: 'main' } });
    this.upstreamOf(connection)?.logs.subscribe(replay.replay);
  }

  private call(connection: Connection, message: Extract<ClientMessage, { op: 'call' }>): void {
    const { id, domain: name, method } = message;
    const domain = this.domains.get(name);
    const quotedName = JSON.stringify(name).slice(0, 100);
    if (!domain?.call)
      return domain || HUB_DOMAINS.has(name)
        ? this.fail(connection, id, 'unknown_method', `The ${quotedName} domain takes no calls.`)
        : this.fail(connection, id, 'unknown_domain', `No domain ${quotedName}.`);
    if (!coversScope(connection.principal, domain.scope))
      return this.refuse(connection, id, insufficientScope(`The "${name}" domain`, domain.scope));
    const answer = (envelope: ServerEnvelope) => {
      if (this.connections.has(connection)) this.send(connection, envelope);
    };
    // The answer comes when the handler settles; whatever it throws or returns, the hub answers once and never rejects.
    void Promise.resolve()
      .then(() => {
        const request = { method, data: message.data, principal: connection.principal };
        return domain.call?.(message.session === undefined ? request : { ...request, session: message.session });
      })
      .then(
        (result) => {
          if (!result) return;
          answer(result.ok ? { op: 'response', id, ok: true, data: result.data } : refusalEnvelope(id, result));
        },
        (error: unknown) => this.failed(connection, id, `the ${name} domain's call ${JSON.stringify(method).slice(0, 100)} failed`, error),
      )
      .catch((error: unknown) => this.failed(connection, id, `the ${name} domain's answer could not be sent`, error));
  }

  /** Sends one event of a domain's topic; an event that cannot be serialised is logged and dropped, never thrown at its publisher. */
  private sendEvent(
    connection: Connection,
    domain: string,
    topic: string,
    event: string,
    data: unknown,
    options?: ChannelEventOptions,
  ): void {
    try {
      const session = options?.session;
      this.send(
        connection,
        session === undefined ? { op: 'event', domain, topic, event, data } : { op: 'event', domain, topic, session, event, data },
      );
    } catch (error) {
      this.options.logger.error({ domain, topic, event, err: errorMessage(error) }, 'a channel event could not be sent');
    }
  }

  private availableTopics(): string {
    const topics: string[] = [];
    for (const [name, domain] of this.domains) for (const topic of domain.topics ?? []) topics.push(`${name}/${topic}`);
    return topics.join(', ');
  }

  private refuse(connection: Connection, id: string | number, refusal: ChannelRefusal): void {
    this.send(connection, refusalEnvelope(id, refusal));
  }

  /** A domain threw: logged with why, answered internal_error (when the socket is still there). */
  private failed(connection: Connection, id: string | number, what: string, error: unknown): void {
    this.options.logger.error({ err: errorMessage(error) }, what);
    if (this.connections.has(connection)) this.fail(connection, id, 'internal_error', 'The request could not be handled.');
  }

  private fail(connection: Connection, id: string | number | null, code: string, message: string): void {
    this.send(connection, { op: 'response', id, ok: false, error: { code, message } });
  }

  private send(connection: Connection, envelope: ServerEnvelope): void {
    this.sendText(connection, JSON.stringify(envelope));
  }

  private sendText(connection: Connection, text: string): void {
    // 1 = OPEN; a socket closing meanwhile simply misses the message.
    if (connection.capped || connection.socket.readyState !== 1) return;
    if (!this.caps.overBuffered(connection.socket)) return connection.socket.send(text);
    connection.capped = true;
    // After the publish under way: its domain may be going through its listeners, this one among them.
    queueMicrotask(() => this.closeForCap(connection, CLOSE_TRY_AGAIN_LATER, SEND_BUFFER_FULL_REASON));
  }

  /** Whether a subscribe or unsubscribe fits the socket's rate: past it answered rate_limited, far past it closed with 1008. */
  private admitted(connection: Connection, id: string | number): boolean {
    const admission = this.caps.admit(connection.requests);
    if (admission === 'refused') this.fail(connection, id, 'rate_limited', this.caps.rateLimitedMessage);
    if (admission === 'flooding') {
      connection.capped = true;
      this.closeForCap(connection, CLOSE_POLICY_VIOLATION, REQUEST_FLOOD_REASON);
    }
    return admission === 'admitted';
  }

  private closeForCap(connection: Connection, code: number, reason: string): void {
    if (!this.connections.has(connection)) return;
    this.options.logger.warn({ connection: connection.id, code, reason }, 'a WebSocket was closed at its cap');
    this.close(connection, code, reason);
  }

  private close(connection: Connection, code: number, reason: string): void {
    this.drop(connection);
    try {
      connection.socket.close(code, reason);
      this.closingSockets.add(connection);
    } catch (error) {
      this.options.logger.debug({ err: String(error) }, 'closing a WebSocket failed');
    }
  }

  /** The runtime reports the socket gone (its closing handshake done, or the peer lost). */
  private closed(connection: Connection): void {
    this.closingSockets.delete(connection);
    this.drop(connection);
  }

  private drop(connection: Connection): void {
    for (const unsubscribe of connection.subscriptions.values()) unsubscribe();
    connection.subscriptions.clear();
    // A closed, failed or revoked (4001) client socket takes its upstream socket with it.
    connection.upstream?.logs.close();
    connection.upstream?.relay.close();
    this.connections.delete(connection);
  }
}

function refusalEnvelope(id: string | number, refusal: ChannelRefusal): ServerEnvelope {
  return { op: 'response', id, ok: false, error: { code: String(refusal.code), message: String(refusal.message) } };
}

/** The op as the client sent it, for the error message; never stringifies a nested value, which may be thousands deep. */
function describeOp(op: unknown): string {
  if (Array.isArray(op)) return 'of type array';
  if (typeof op === 'object' && op !== null) return 'of type object';
  return JSON.stringify(op ?? null).slice(0, 100);
}

function requestIdOf(raw: unknown): string | number | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const encoder = new TextEncoder();

/** The size of `text` on the wire: the limit is in bytes, and one character can take up to 3 of them. */
function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/** Bytes of a binary message (ArrayBuffer, a view of one, or a Blob); 0 when unknown. */
function binarySize(data: unknown): number {
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  if (typeof Blob !== 'undefined' && data instanceof Blob) return data.size;
  return 0;
}
