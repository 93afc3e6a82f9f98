import type { Principal } from '@webui/core';
import { handlerLogOver, type HandlerLog } from '../../../mount/handler-log.js';
import { errorMessage } from '@webui/core/adapter';
import type { WSEvents, WSContext } from 'hono/ws';
import type { AppLogger } from '../../../app-env.js';
import { parseClientFrame } from './client-frame.js';
import {
  CLOSE_MESSAGE_TOO_BIG,
  CLOSE_TOKEN_CHANGED,
  CLOSE_TRY_AGAIN_LATER,
  MAX_MESSAGE_BYTES,
  SESSION_END_REASONS,
  type SessionEnd,
} from './close-codes.js';
import type { ChannelDomainPort } from '../domains/channel-domain-port.js';
import { coversScope, insufficientScope, relayedScope } from '../domains/channel-scope.js';
import { DomainRequests } from '../domains/domain-requests.js';
import { domainRegistry } from '../domains/domain-registry.js';
import type { ClientMessage, ServerEnvelope } from './envelopes.js';
import type { Connection } from './hub-connection.js';
import type { LogSource } from './log-source.js';
import { LogsDomain, replayOf } from '../domains/logs-domain.js';
import { HUB_DOMAINS, type ChannelRelay } from './channel-relay.js';
import { SEND_BUFFER_FULL_REASON } from '../caps/send-buffer.js';
import {
  CLOSE_POLICY_VIOLATION,
  REQUEST_FLOOD_REASON,
  SocketCaps,
  type SocketCapCounts,
  type SocketCapOptions,
} from '../caps/socket-caps.js';

export {
  CLOSE_GOING_AWAY,
  CLOSE_MESSAGE_TOO_BIG,
  CLOSE_TOKEN_CHANGED,
  CLOSE_TRY_AGAIN_LATER,
  MAX_MESSAGE_BYTES,
  SESSION_END_REASONS,
  type SessionEnd,
} from './close-codes.js';

export interface WsHubOptions {
  /** This server's log lines: the built-in `logs` domain, always registered first (merged with the bot's with an upstream). */
  logs: LogSource;
  /**
   * The other domains, in the order `unknown_topic` lists them: the built-in plugin_progress (not with an upstream, where it is
   * the bot's) and security, and a bot's own. A name taken, reserved (`system`) or malformed is a MountError here.
   */
  domains?: readonly ChannelDomainPort[];
  logger: AppLogger;
  /** The logger a bot's channel calls get (`ChannelCallContext.log`); `logger` when absent. */
  handlerLog?: HandlerLog;
  now: () => number;
  newConnectionId: () => string;
  maxPerSession?: number;
  maxTotal?: number;
  maxMessageBytes?: number;
  /** The bot's own backend's channel (issue 33), from the gateway: its domains are relayed there, and its log lines join ours. */
  relay?: ChannelRelay;
  /** What one socket may hold unsent and how fast it may subscribe (issue 42); the runtime brings its measure here. */
  caps?: SocketCapOptions;
}

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
  private readonly requests: DomainRequests;

  constructor(private readonly options: WsHubOptions) {
    this.domains = domainRegistry([new LogsDomain(options.logs), ...(options.domains ?? [])]);
    this.requests = new DomainRequests(
      this.domains,
      {
        send: (connection, envelope) => this.send(connection, envelope),
        fail: (connection, id, code, message) => this.fail(connection, id, code, message),
        isOpen: (connection) => this.connections.has(connection),
        ...(options.relay ? { subscribeMergedLogs: (connection, id, data) => this.subscribeMergedLogs(connection, id, data) } : {}),
      },
      options.logger,
      options.handlerLog ?? handlerLogOver(options.logger),
    );
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
    return this.requests.counts(this.connections);
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
    const frame = parseClientFrame(data, this.maxMessageBytes);
    if (frame.kind === 'too_big') return this.close(connection, CLOSE_MESSAGE_TOO_BIG, 'message too big');
    if (frame.kind === 'invalid') return this.fail(connection, frame.id, frame.code, frame.message);
    const { message, text } = frame;
    if (message.op === 'ping') return this.send(connection, { op: 'pong', ts: this.options.now() });
    if ((message.op === 'subscribe' || message.op === 'unsubscribe') && !this.admitted(connection, message.id)) return;
    if (this.relays(message.domain)) return this.relay(connection, message, text);
    switch (message.op) {
      case 'call':
        return this.requests.call(connection, message);
      case 'subscribe':
        return this.requests.subscribe(connection, message);
      case 'unsubscribe':
        return this.requests.unsubscribe(connection, message);
    }
  }

  /** Whether a domain is the upstream's: with one, every domain but logs, security, system and the registered ones. */
  private relays(domain: string): boolean {
    return this.options.relay !== undefined && !HUB_DOMAINS.has(domain) && !this.domains.has(domain);
  }

  /** A relayed domain is held to a mounted one's scope rule; refused, nothing reaches the upstream (no socket is even opened). */
  private relay(connection: Connection, message: Exclude<ClientMessage, { op: 'ping' }>, text: string): void {
    const scope = relayedScope(message.op);
    if (!coversScope(connection.principal, scope)) {
      const domain = JSON.stringify(message.domain).slice(0, 100);
      const what = message.op === 'call' ? `A call on the ${domain} domain` : `The ${domain} domain`;
      return this.requests.refuse(connection, message.id, insufficientScope(what, scope));
    }
    // The client's own text goes upstream: the relay changes nothing in it.
    this.upstreamOf(connection)?.forward(message, text);
  }

  /** The connection's link to the upstream, made on first need; none for a socket already dropped (no socket may leak). */
  private upstreamOf(connection: Connection): Connection['upstream'] {
    const relay = this.options.relay;
    if (!relay || !this.connections.has(connection)) return undefined;
    connection.upstream ??= relay.open({
      principal: connection.principal,
      logs: this.options.logs,
      now: this.options.now,
      pass: (text) => this.sendText(connection, text),
      send: (envelope) => this.send(connection, envelope),
      fail: (id, code, message) => this.fail(connection, id, code, message),
    });
    return connection.upstream;
  }

  private subscribeMergedLogs(connection: Connection, id: string | number, data: unknown): void {
    const replay = replayOf(data);
    if (!replay.ok) return this.requests.refuse(connection, id, replay);
    this.send(connection, { op: 'response', id, ok: true, data: { domain: 'logs', topic: 'main' } });
    this.upstreamOf(connection)?.subscribeLogs(replay.replay);
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
    connection.upstream?.close();
    this.connections.delete(connection);
  }
}
