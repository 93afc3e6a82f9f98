import type { WSContext, WSEvents } from 'hono/ws';
import * as v from 'valibot';
import type { AppLogger } from '../app-env.js';
import type { UpstreamChannelOptions } from '../upstream/upstream-options.js';
import { ClientMessage, LogSubscribeData, type ServerEnvelope } from './envelopes.js';
import type { LogSource } from './log-source.js';
import { MergedLogView } from './merged-log-view.js';
import type { PluginProgressBoard } from './plugin-progress-board.js';
import type { SecurityFeed } from './security-feed.js';
import { HUB_DOMAINS, SYSTEM_TIMERS, UpstreamRelay, type RelayTimers } from './upstream-relay.js';

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
  logs: LogSource;
  progress: PluginProgressBoard;
  /** The `security` domain's events; without it the topic is unknown. */
  security?: SecurityFeed;
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
}

interface Connection {
  id: string;
  sessionToken: string;
  socket: WSContext;
  /** Unsubscribe functions by "domain/topic". */
  subscriptions: Map<string, () => void>;
  /** With an upstream, made on first need: the link to its channel and the merged logs/main. */
  upstream?: { relay: UpstreamRelay; logs: MergedLogView };
}

/** The domains that exist without an upstream (with one, plugin_progress is the bot's); none of them takes calls. */
const OWN_DOMAINS: ReadonlySet<string> = new Set([...HUB_DOMAINS, 'plugin_progress']);

/**
 * The unified WebSocket channel (DESIGN D13): system events, the log stream and plugin progress; with an upstream
 * (issue 33), the bot's domains relayed to its own channel and its log lines merged into ours.
 */
export class WsHub {
  private readonly connections = new Set<Connection>();
  private readonly maxPerSession: number;
  private readonly maxTotal: number;
  private readonly maxMessageBytes: number;

  constructor(private readonly options: WsHubOptions) {
    this.maxPerSession = options.maxPerSession ?? 256;
    this.maxTotal = options.maxTotal ?? 1024;
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  get size(): number {
    return this.connections.size;
  }

  /** Whether one more socket fits the caps that keep memory bounded (DESIGN D14). */
  canAccept(sessionToken: string): boolean {
    if (this.connections.size >= this.maxTotal) return false;
    let ofSession = 0;
    for (const connection of this.connections) if (connection.sessionToken === sessionToken) ofSession++;
    return ofSession < this.maxPerSession;
  }

  /** The event handlers of one socket opened with a ticket of `sessionToken`. */
  events(sessionToken: string): WSEvents {
    const connection: Connection = {
      id: this.options.newConnectionId(),
      sessionToken,
      socket: undefined as unknown as WSContext,
      subscriptions: new Map(),
    };
    return {
      onOpen: (_event, socket) => {
        connection.socket = socket;
        if (!this.canAccept(sessionToken)) {
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
        // No message may escape as an exception: the runtime adapter would drop it unanswered or crash.
        try {
          this.receive(connection, event.data);
        } catch (error) {
          this.options.logger.error(
            { err: error instanceof Error ? error.message : String(error) },
            'a WebSocket message could not be handled',
          );
          this.fail(connection, null, 'internal_error', 'The message could not be handled.');
        }
      },
      onClose: () => this.drop(connection),
      onError: () => this.drop(connection),
    };
  }

  /** Closes every socket opened under a session that is no longer valid (the old token, or a revoked key's), with 4001 and why. */
  revokeSession(sessionToken: string, why: SessionEnd = 'token_changed'): void {
    for (const connection of [...this.connections]) {
      if (connection.sessionToken === sessionToken) this.close(connection, CLOSE_TOKEN_CHANGED, SESSION_END_REASONS[why]);
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
    // The client's own text goes upstream: the relay changes nothing in it.
    if (this.relays(message.domain)) return this.upstreamOf(connection)?.relay.forward(message, text);
    switch (message.op) {
      case 'call': {
        const known = OWN_DOMAINS.has(message.domain);
        const domain = JSON.stringify(message.domain).slice(0, 100);
        return known
          ? this.fail(connection, message.id, 'unknown_method', `The ${domain} domain takes no calls.`)
          : this.fail(connection, message.id, 'unknown_domain', `No domain ${domain}.`);
      }
      case 'subscribe':
        return this.subscribe(connection, message);
      case 'unsubscribe': {
        const key = `${message.domain}/${message.topic}`;
        if (key === 'logs/main') connection.upstream?.logs.unsubscribe();
        connection.subscriptions.get(key)?.();
        connection.subscriptions.delete(key);
        return this.send(connection, { op: 'response', id: message.id, ok: true, data: { domain: message.domain, topic: message.topic } });
      }
    }
  }

  /** Whether a domain is the upstream's: with one, every domain but logs, security and system. */
  private relays(domain: string): boolean {
    return this.options.upstream !== undefined && !HUB_DOMAINS.has(domain);
  }

  /** The connection's link to the upstream, made on first need; none for a socket already dropped (no socket may leak). */
  private upstreamOf(connection: Connection): Connection['upstream'] {
    const channel = this.options.upstream;
    if (!channel || !this.connections.has(connection)) return undefined;
    if (connection.upstream) return connection.upstream;
    const timers = this.options.timers ?? SYSTEM_TIMERS;
    const relay: UpstreamRelay = new UpstreamRelay({
      channel,
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
    const { id, domain, topic } = message;
    const key = `${domain}/${topic}`;
    if (key === 'logs/main') {
      const data = v.safeParse(LogSubscribeData, message.data);
      if (!data.success) return this.fail(connection, id, 'invalid_request', 'data.replay must be an integer from 0 to 500.');
      connection.subscriptions.get(key)?.();
      this.send(connection, { op: 'response', id, ok: true, data: { domain, topic } });
      // With an upstream the snapshot merges the bot's entries, which take a moment to arrive.
      if (this.options.upstream) return this.upstreamOf(connection)?.logs.subscribe(data.output.replay);
      this.send(connection, {
        op: 'event',
        domain,
        topic,
        event: 'snapshot',
        data: { entries: this.options.logs.recent(data.output.replay) },
      });
      connection.subscriptions.set(
        key,
        this.options.logs.subscribe((entry) => this.send(connection, { op: 'event', domain, topic, event: 'entry', data: { entry } })),
      );
      return;
    }
    // With an upstream this domain is the bot's: relayed before it gets here.
    if (key === 'plugin_progress/main') {
      connection.subscriptions.get(key)?.();
      this.send(connection, { op: 'response', id, ok: true, data: { domain, topic } });
      this.send(connection, { op: 'event', domain, topic, event: 'snapshot', data: { progress: this.options.progress.snapshot() } });
      connection.subscriptions.set(
        key,
        this.options.progress.subscribe((progress) =>
          this.send(connection, { op: 'event', domain, topic, event: 'update', data: { progress } }),
        ),
      );
      return;
    }
    const security = this.options.security;
    if (key === 'security/main' && security) {
      connection.subscriptions.get(key)?.();
      this.send(connection, { op: 'response', id, ok: true, data: { domain, topic } });
      this.send(connection, { op: 'event', domain, topic, event: 'snapshot', data: { events: security.recent() } });
      // Each event under its own name (login_failed, ban_started, ...), the line as the audit file has it.
      connection.subscriptions.set(
        key,
        security.subscribe((line) => this.send(connection, { op: 'event', domain, topic, event: line.event, data: line })),
      );
      return;
    }
    this.fail(connection, id, 'unknown_topic', `No topic ${JSON.stringify(key).slice(0, 100)}; available: ${this.availableTopics()}.`);
  }

  private availableTopics(): string {
    const topics = ['logs/main'];
    if (!this.options.upstream) topics.push('plugin_progress/main');
    if (this.options.security) topics.push('security/main');
    return topics.join(', ');
  }

  private fail(connection: Connection, id: string | number | null, code: string, message: string): void {
    this.send(connection, { op: 'response', id, ok: false, error: { code, message } });
  }

  private send(connection: Connection, envelope: ServerEnvelope): void {
    this.sendText(connection, JSON.stringify(envelope));
  }

  private sendText(connection: Connection, text: string): void {
    // 1 = OPEN; a socket closing meanwhile simply misses the message.
    if (connection.socket.readyState === 1) connection.socket.send(text);
  }

  private close(connection: Connection, code: number, reason: string): void {
    this.drop(connection);
    try {
      connection.socket.close(code, reason);
    } catch (error) {
      this.options.logger.debug({ err: String(error) }, 'closing a WebSocket failed');
    }
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
