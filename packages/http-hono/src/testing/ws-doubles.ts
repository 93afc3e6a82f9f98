// Test doubles of the unified channel's neighbours: this server's log, a client socket, and a clock (the bot's upstream channel is @webui/gateway's).
import type { Principal } from '@webui/core';
import type { WSContext, WSEvents } from 'hono/ws';
import type { WsHub } from '../features/channel/hub/ws-hub.js';
import type { ServerEnvelope } from '../features/channel/hub/envelopes.js';
import type { LogEntry, LogLevel, LogSource } from '../features/channel/hub/log-source.js';

/** The access token's principal, as a ticket of `session` redeems to. */
export function tokenPrincipal(session = 'session-a'): Principal {
  return { kind: 'token', session, status: { tokenSource: 'configured', requiresCustomToken: false } };
}

/** Opens one fake socket to `hub` under `session` the way the runtime would: events(), then onOpen; `send` gives raw data. */
export function openFakeSocket(hub: WsHub, session = 'session-a') {
  const socket = new FakeSocket();
  const events: WSEvents = hub.events(tokenPrincipal(session));
  const ctx = socket as unknown as WSContext;
  events.onOpen?.(new Event('open'), ctx);
  const send = (data: unknown) => events.onMessage?.(new MessageEvent('message', { data: data as string }), ctx);
  const sendJson = (message: unknown) => send(JSON.stringify(message));
  return { socket, events, ctx, send, sendJson };
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
export class FakeClock {
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

/** Lets the relay's promises (the ticket fetch) and the sockets' microtasks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
