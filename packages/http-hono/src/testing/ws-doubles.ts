// Test doubles of the unified channel's neighbours: this server's log, a client socket, a clock, and the bot's upstream channel.
import type { Principal } from '@webui/core';
import type { UpstreamOptions, UpstreamSocket } from '../upstream/upstream-options.js';
import type { ServerEnvelope } from '../features/channel/hub/envelopes.js';
import type { LogEntry, LogLevel, LogSource } from '../features/channel/hub/log-source.js';
import type { RelayTimers } from '../features/channel/relay/relay-timers.js';

/** The access token's principal, as a ticket of `session` redeems to. */
export function tokenPrincipal(session = 'session-a'): Principal {
  return { kind: 'token', session, status: { tokenSource: 'configured', requiresCustomToken: false } };
}

/** An API key's principal; its session is what revoking the key closes. */
export function keyPrincipal(name: string, scope: 'read' | 'admin', session = `api-key ${name}`): Principal {
  return { kind: 'key', session, name, scope, firstUse: false };
}

/** An in-memory log source: `log()` plays a new server log line. */
export class FakeLogs implements LogSource {
  readonly entries: LogEntry[] = [];
  private readonly listeners = new Set<(entry: LogEntry) => void>();
  private nextId = 1;

  log(message: string, level: LogLevel = 'INFO', module = 'webui', timestamp?: string): LogEntry {
    const entry: LogEntry = {
      id: `1700000000000_${String(this.nextId++).padStart(12, '0')}`,
      timestamp: timestamp ?? new Date(1_700_000_000_000 + this.nextId).toISOString(),
      level,
      module,
      message,
    };
    this.entries.push(entry);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  recent(count: number): LogEntry[] {
    return count <= 0 ? [] : this.entries.slice(-count);
  }

  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

/** A socket as @hono/node-ws hands it to the events: records what is sent and how it was closed. */
export class FakeSocket {
  readyState: 0 | 1 | 2 | 3 = 1;
  /** What the runtime holds unsent, as the web WebSocket says it (the hub's send cap reads it through `raw`). */
  bufferedAmount = 0;
  /** Hono's WSContext has the runtime's socket as `raw`: this double stands for both. */
  get raw(): this {
    return this;
  }
  readonly sent: ServerEnvelope[] = [];
  /** The frames exactly as sent, for checks that a relayed frame is passed unchanged. */
  readonly texts: string[] = [];
  closed: { code: number; reason: string } | null = null;

  send(data: string): void {
    this.texts.push(data);
    this.sent.push(JSON.parse(data) as ServerEnvelope);
  }

  close(code: number, reason: string): void {
    this.closed = { code, reason };
    this.readyState = 3;
  }

  /** Messages sent since the last call. */
  private read = 0;
  take(): ServerEnvelope[] {
    const fresh = this.sent.slice(this.read);
    this.read = this.sent.length;
    return fresh;
  }
}

/** Timers that fire only when the test moves the clock: back-off and waits without real sleeps. */
export class FakeClock implements RelayTimers {
  now = 0;
  private nextHandle = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.timers.set(handle, { at: this.now + ms, callback });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Delays from now of the timers pending, soonest first. */
  pending(): number[] {
    return [...this.timers.values()].map(({ at }) => at - this.now).sort((a, b) => a - b);
  }

  /** Moves the clock by `ms`, firing every timer due on the way, in time order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const timer of this.timers) if (timer[1].at <= end && (!due || timer[1].at < due[1].at)) due = timer;
      if (!due) break;
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
    }
    this.now = end;
  }
}

type Listener = (event: never) => void;
type Frame = Record<string, unknown>;

/** One socket to the fake upstream's channel: the relay's side of it, with the test's handles to open, drop or fail it. */
export class FakeUpstreamSocket implements UpstreamSocket {
  readyState = 0;
  /** What the relay's side holds unsent; a test sets it to play a bot that does not read. */
  bufferedAmount = 0;
  readonly frames: Frame[] = [];
  readonly texts: string[] = [];
  readonly subscriptions = new Set<string>();
  closed: { code: number | undefined; reason: string | undefined } | null = null;
  private readonly listeners = new Map<string, Listener[]>();

  constructor(
    readonly url: string,
    readonly headers: Readonly<Record<string, string>>,
    private readonly upstream: FakeUpstream,
  ) {}

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    if (this.readyState !== 1) throw new Error('not open');
    this.texts.push(data);
    const frame = JSON.parse(data) as Frame;
    this.frames.push(frame);
    this.upstream.handle(this, frame);
  }

  close(code?: number, reason?: string): void {
    if (this.readyState === 3) return;
    this.closed = { code, reason };
    this.readyState = 3;
    this.emit('close', { code: code ?? 1005, reason: reason ?? '' });
  }

  /** The handshake completes: the upstream says ready, as the original does. */
  open(): void {
    this.readyState = 1;
    this.emit('open', {});
    this.deliver({ op: 'event', domain: 'system', event: 'ready', data: { connection_id: 'upstream-1', timestamp: 1 } });
  }

  deliver(frame: unknown): void {
    if (this.readyState === 1) this.emit('message', { data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }

  /** The upstream goes away under the relay. */
  drop(code = 1006): void {
    this.readyState = 3;
    this.emit('close', { code, reason: '' });
  }

  fail(): void {
    this.emit('error', {});
    this.drop();
  }

  sentOf(op: string, domain?: string): Frame[] {
    return this.frames.filter((frame) => frame['op'] === op && (domain === undefined || frame['domain'] === domain));
  }

  private emit(type: string, event: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) (listener as (event: unknown) => void)(event);
  }
}

/**
 * The bot's backend as the relay sees it: `ws-token` through the transport, and a channel speaking the original's
 * envelopes (subscribe/unsubscribe to a set, logs snapshot, a chat call, maisaka_monitor and plugin_progress).
 */
export class FakeUpstream {
  /** How ws-token answers: a ticket, `success:false`, 401, or no answer at all (connection refused). */
  ticket: 'ok' | 'refused' | 'unauthorized' | 'down' = 'ok';
  /** Whether a socket completes its handshake on its own (a microtask after it is made). */
  autoOpen = true;
  /** Whether the channel answers messages on its own. */
  answers = true;
  readonly ticketRequests: Request[] = [];
  readonly sockets: FakeUpstreamSocket[] = [];
  /** The bot's log lines, served as its logs/main snapshot (the last `replay`). */
  botLogs: unknown[] = [];
  private issued = 0;

  readonly options: UpstreamOptions = {
    origin: 'http://127.0.0.1:8002',
    paths: ['/api/webui'],
    publicPaths: [],
    headers: { Cookie: 'maibot_session=upstream-secret' },
    timeoutMs: 30_000,
    transport: (request) => this.transport(request),
  };

  readonly openSocket = (url: string, headers: Readonly<Record<string, string>>): FakeUpstreamSocket => {
    const socket = new FakeUpstreamSocket(url, headers, this);
    this.sockets.push(socket);
    if (this.autoOpen) queueMicrotask(() => socket.open());
    return socket;
  };

  get last(): FakeUpstreamSocket {
    const socket = this.sockets.at(-1);
    if (!socket) throw new Error('no upstream socket was opened');
    return socket;
  }

  /** Sockets not closed by the relay nor dropped. */
  get live(): FakeUpstreamSocket[] {
    return this.sockets.filter((socket) => socket.readyState !== 3);
  }

  /** An event to every socket subscribed to domain/topic, as the original broadcasts. */
  broadcast(domain: string, topic: string, event: string, data: unknown): void {
    for (const socket of this.live)
      if (socket.subscriptions.has(`${domain}/${topic}`)) socket.deliver({ op: 'event', domain, topic, event, data });
  }

  handle(socket: FakeUpstreamSocket, frame: Frame): void {
    if (!this.answers) return;
    const { op, id, domain, topic } = frame;
    const key = `${String(domain)}/${String(topic)}`;
    const reply = (ok: boolean, data: unknown) =>
      socket.deliver(
        ok ? { op: 'response', id, ok, data } : { op: 'response', id, ok, error: { code: 'unsupported', message: String(data) } },
      );
    if (op === 'ping') return socket.deliver({ op: 'pong', ts: 1 });
    if (op === 'unsubscribe') {
      socket.subscriptions.delete(key);
      return reply(true, { domain, topic });
    }
    if (op === 'subscribe') {
      if (!['logs/main', 'maisaka_monitor/main', 'plugin_progress/main'].includes(key)) return reply(false, 'no such subscription');
      socket.subscriptions.add(key);
      reply(true, { domain, topic });
      if (key === 'logs/main') {
        const replay = Number((frame['data'] as { replay?: unknown } | undefined)?.replay ?? 100);
        socket.deliver({ op: 'event', domain: 'logs', topic: 'main', event: 'snapshot', data: { entries: this.botLogs.slice(-replay) } });
      }
      if (key === 'plugin_progress/main')
        socket.deliver({ op: 'event', domain, topic, event: 'snapshot', data: { progress: { stage: 'idle' } } });
      return;
    }
    if (op === 'call' && domain === 'chat') {
      return socket.deliver({ op: 'response', id, ok: true, data: { method: frame['method'], session: frame['session'] ?? null } });
    }
    reply(false, 'unsupported');
  }

  private async transport(request: Request): Promise<Response> {
    this.ticketRequests.push(request);
    if (this.ticket === 'down') throw new TypeError('fetch failed: connect ECONNREFUSED');
    if (this.ticket === 'unauthorized') return Response.json({ detail: 'no' }, { status: 401 });
    if (this.ticket === 'refused') return Response.json({ success: false, message: 'not logged in', token: null, expires_in: 0 });
    return Response.json({ success: true, token: `ticket ${++this.issued}/+=`, expires_in: 60 });
  }
}

/** Lets the relay's promises (the ticket fetch) and the sockets' microtasks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
