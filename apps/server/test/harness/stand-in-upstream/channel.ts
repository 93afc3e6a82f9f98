import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BotLogs, type BotLogEntry, type BotLogInput } from './bot-logs.js';
import { chatCall } from './chat-domain.js';
import { dataField, epochSeconds, event, nonNegativeInt, response, textField, type Envelope } from './envelopes.js';
import { MonitorEvents } from './monitor-events.js';
import type { RecordedRequest, Recorder } from './recorder.js';
import type { Tickets } from './tickets.js';

/** One socket on the stand-in's channel, open or closed. */
export interface ChannelConnection {
  /** The `connection_id` of its `system`/`ready` event. */
  id: string;
  handshake: RecordedRequest;
  /** What let it in: a one-time ticket, or the session cookie on the handshake (the original accepts both). */
  authenticatedBy: 'ticket' | 'cookie';
  open: boolean;
  /** The close code once closed. */
  closeCode: number | undefined;
}

interface Live {
  record: ChannelConnection;
  socket: WebSocket;
  subscriptions: Set<string>;
  chatSessions: Map<string, string>;
}

/** The plugin progress the original reports before any install (contract §5). */
const IDLE_PROGRESS: Record<string, unknown> = {
  operation: 'idle',
  stage: 'idle',
  progress: 0,
  message: '',
  error: null,
  plugin_id: null,
  total_plugins: 0,
  loaded_plugins: 0,
};

/** The original's unified channel at `/api/webui/ws`: its handshake check, its ops, its domains (logs, plugin_progress, monitor, chat). */
export class StandInChannel {
  readonly connections: ChannelConnection[] = [];
  readonly logs = new BotLogs();
  private readonly monitor = new MonitorEvents();
  private progress: Record<string, unknown> = { ...IDLE_PROGRESS };
  private readonly live = new Map<string, Live>();
  private readonly server = new WebSocketServer({ noServer: true });

  constructor(
    private readonly recorder: Recorder,
    private readonly tickets: Tickets,
    private readonly sessionValid: (session: string | undefined) => boolean,
  ) {}

  get openSockets(): number {
    return this.live.size;
  }

  /**
   * A handshake on `/api/webui/ws`: a good ticket (spent here) or the session cookie opens it; anything else gets 403,
   * as the original's close before accept does.
   */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, recorded: RecordedRequest, cookie: string | undefined): void {
    const ticket = new URL(request.url ?? '/', 'http://stand-in').searchParams.get('token');
    const byTicket = ticket !== null && ticket !== '' && this.tickets.consume(ticket, (session) => this.sessionValid(session));
    const authenticatedBy = byTicket ? 'ticket' : this.sessionValid(cookie) ? 'cookie' : undefined;
    if (authenticatedBy === undefined) {
      recorded.status = 403;
      this.recorder.changed();
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.server.handleUpgrade(request, socket, head, (ws) => {
      recorded.status = 101;
      this.accept(ws, recorded, authenticatedBy);
    });
  }

  /** Sends a live log line to every `logs/main` subscriber and keeps it for later snapshots. */
  emitLog(input: BotLogInput): BotLogEntry {
    const entry = this.logs.add(input);
    this.broadcast('logs', 'entry', { entry });
    return entry;
  }

  /**
   * Sends a monitor event to every `maisaka_monitor/main` subscriber; recorded for replays with its `event_id`, unless
   * `transient` (as the original's `stage.status`, sent live only and without an id).
   */
  emitMonitor(name: string, data: Record<string, unknown>, transient: boolean): Record<string, unknown> {
    const sent = transient ? { event: name, data: { ...data } } : this.monitor.record(name, data);
    this.broadcast('maisaka_monitor', sent.event, sent.data);
    return sent.data;
  }

  /** Replaces the plugin progress and sends it to every `plugin_progress/main` subscriber as an `update`. */
  emitProgress(progress: Record<string, unknown>): void {
    this.progress = { ...progress };
    this.broadcast('plugin_progress', 'update', { progress: this.progress });
  }

  /** Closes every open socket with `code` (the upstream going away: 1001; dropping: 1011). */
  closeSockets(code = 1001, reason = ''): void {
    for (const { socket } of this.live.values()) socket.close(code, reason);
  }

  /** Cuts every socket at once, without a close frame. */
  terminate(): void {
    for (const { socket } of this.live.values()) socket.terminate();
    this.server.close();
  }

  private accept(socket: WebSocket, handshake: RecordedRequest, authenticatedBy: 'ticket' | 'cookie'): void {
    const id = randomUUID().replaceAll('-', '');
    const record: ChannelConnection = { id, handshake, authenticatedBy, open: true, closeCode: undefined };
    const live: Live = { record, socket, subscriptions: new Set(), chatSessions: new Map() };
    this.connections.push(record);
    this.live.set(id, live);
    socket.on('message', (data: Buffer, isBinary: boolean) => this.receive(live, data, isBinary));
    socket.on('close', (code: number) => {
      this.live.delete(id);
      record.open = false;
      record.closeCode = code;
      this.recorder.changed();
    });
    socket.on('error', () => undefined);
    this.send(live, event('system', 'ready', { connection_id: id, timestamp: epochSeconds() }));
    this.recorder.changed();
  }

  private receive(live: Live, data: Buffer, isBinary: boolean): void {
    const raw = data.toString('utf8');
    let message: unknown;
    try {
      message = isBinary ? undefined : JSON.parse(raw);
    } catch {
      message = undefined;
    }
    this.recorder.recordChannelMessage(live.record.id, raw, message);
    // Not JSON: the original's receive loop fails and closes the socket.
    if (message === undefined) return live.socket.close(1000);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return this.send(live, response(null, false, { code: 'invalid_message', message: 'a message must be a JSON object' }));
    }
    for (const envelope of this.answer(live, message as Record<string, unknown>)) this.send(live, envelope);
  }

  private answer(live: Live, message: Record<string, unknown>): Envelope[] {
    const op = textField(message, 'op');
    const id = message['id'];
    if (op === 'ping') return [{ op: 'pong', ts: epochSeconds() }];
    if (op === 'subscribe') return this.subscribe(live, message);
    if (op === 'unsubscribe') {
      const [domain, topic] = [textField(message, 'domain'), textField(message, 'topic')];
      if (!domain || !topic)
        return [response(id, false, { code: 'invalid_unsubscribe', message: 'unsubscribe needs a domain and a topic' })];
      live.subscriptions.delete(`${domain}:${topic}`);
      return [response(id, true, { domain, topic })];
    }
    if (op === 'call') {
      const domain = textField(message, 'domain');
      if (domain === 'chat') return chatCall(live.record.id, live.chatSessions, message);
      return [response(id, false, { code: 'unsupported_domain', message: `unsupported call domain: ${domain}` })];
    }
    return [response(id, false, { code: 'unsupported_operation', message: `unsupported operation: ${op}` })];
  }

  private subscribe(live: Live, message: Record<string, unknown>): Envelope[] {
    const [id, domain, topic, data] = [message['id'], textField(message, 'domain'), textField(message, 'topic'), dataField(message)];
    const key = `${domain}:${topic}`;
    const main = { topic: 'main' };
    if (key === 'logs:main') {
      // `replay` of 0 or none means 100, as the original's `int(x or 100)`; at most 500.
      const replay = Math.min(nonNegativeInt(data['replay'], 100) || 100, 500);
      live.subscriptions.add(key);
      return [response(id, true, { domain, topic }), event('logs', 'snapshot', { entries: this.logs.recent(replay) }, main)];
    }
    if (key === 'plugin_progress:main') {
      live.subscriptions.add(key);
      return [response(id, true, { domain, topic }), event('plugin_progress', 'snapshot', { progress: { ...this.progress } }, main)];
    }
    if (key === 'maisaka_monitor:main') {
      const sinceEventId = nonNegativeInt(data['since_event_id'], 0);
      const replayLimit = Math.max(1, Math.min(nonNegativeInt(data['replay_limit'], 1000), 10_000));
      live.subscriptions.add(key);
      return [
        response(id, true, { domain, topic, since_event_id: sinceEventId, replay_limit: replayLimit }),
        ...this.monitor.replay(sinceEventId, replayLimit).map((replayed) => event('maisaka_monitor', replayed.event, replayed.data, main)),
        event('maisaka_monitor', 'stage.snapshot', { entries: [], timestamp: epochSeconds() }, main),
      ];
    }
    return [response(id, false, { code: 'unsupported_subscription', message: `unsupported subscription: ${key}` })];
  }

  private broadcast(domain: string, name: string, data: Record<string, unknown>): void {
    for (const live of this.live.values()) {
      if (live.subscriptions.has(`${domain}:main`)) this.send(live, event(domain, name, data, { topic: 'main' }));
    }
  }

  private send(live: Live, envelope: Envelope): void {
    if (live.socket.readyState === live.socket.OPEN) live.socket.send(JSON.stringify(envelope));
  }
}
