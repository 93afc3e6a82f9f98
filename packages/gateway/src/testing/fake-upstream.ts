// The bot's upstream channel, faked for the relay's tests: its ticket endpoint and its sockets.
import type { UpstreamOptions, UpstreamSocket } from '../upstream-options.js';

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
