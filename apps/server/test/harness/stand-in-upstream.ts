import { rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BotLogEntry, BotLogInput } from './stand-in-upstream/bot-logs.js';
import { StandInChannel, type ChannelConnection } from './stand-in-upstream/channel.js';
import { consumeBody, cookieValue, route, writeServerEvent, type RouteContext } from './stand-in-upstream/http-routes.js';
import { Recorder, type ChannelMessage, type RecordedRequest } from './stand-in-upstream/recorder.js';
import { Tickets } from './stand-in-upstream/tickets.js';

export type { BotLogEntry, BotLogInput } from './stand-in-upstream/bot-logs.js';
export type { ChannelConnection } from './stand-in-upstream/channel.js';
export type { ChannelMessage, RecordedRequest } from './stand-in-upstream/recorder.js';
export { downloadByteAt, MAIN_PROGRAM_VERSION, REQUIRED_WEBUI_VERSION } from './stand-in-upstream/http-routes.js';
export { STAND_IN_BOT_NAME } from './stand-in-upstream/chat-domain.js';

/**
 * A stand-in for the bot's own backend (the original, MaiBot's FastAPI WebUI), speaking its wire as
 * docs/dashboard.md §3–§5 and §7 describe it: its own cookie `maibot_session=<token>` on every route but the version
 * check, `ws-token` one-time tickets, the unified channel with `logs`, `plugin_progress`, `maisaka_monitor` and `chat`,
 * and a few routes for the gateway's tests (streamed upload and download, server-sent events, a slow answer, cookies).
 * It records every request and channel message it receives, so a test proves what never arrived as well as what did.
 */
export interface StandInUpstream {
  /** `http://127.0.0.1:<port>`; `http://localhost` when it listens on a Unix socket. */
  url: string;
  /** 0 on a Unix socket. */
  port: number;
  socketPath: string | undefined;
  /** Every HTTP request and WebSocket handshake, in arrival order (a test may empty it: `received.length = 0`). */
  received: RecordedRequest[];
  /** Every message a channel socket sent, with the connection it came on. */
  channelMessages: ChannelMessage[];
  /** Every channel socket ever accepted, open or closed. */
  connections: ChannelConnection[];
  readonly openSockets: number;
  /** Tickets issued by `ws-token` and not yet spent or expired. */
  readonly outstandingTickets: number;
  /** A bot log line: sent live to `logs/main` subscribers and kept for snapshots. Returns the entry as sent live. */
  emitLog(entry?: BotLogInput): BotLogEntry;
  /**
   * A `maisaka_monitor` event sent live, and recorded for replays with its `event_id` (returned in its data); with
   * `{ transient: true }` sent live only, without an id, as the original's `stage.status`.
   */
  emitMonitor(event: string, data?: Record<string, unknown>, options?: { transient?: boolean }): Record<string, unknown>;
  /** New plugin progress: the next snapshot's, and an `update` event to `plugin_progress/main` subscribers. */
  emitProgress(progress: Record<string, unknown>): void;
  /** One more event on every held `/api/webui/events?hold=1` stream. */
  pushServerEvent(data: unknown): void;
  setBehaviour(change: Partial<StandInBehaviour>): void;
  /** Closes every open channel socket with `code` (default 1001), as the upstream restarting would. */
  closeSockets(code?: number, reason?: string): void;
  /** Resolves with the first truthy value of `check`, looked at now and after every request, chunk, message and close. */
  waitFor<T>(check: () => T | undefined | null | false, timeoutMs?: number, what?: string): Promise<T>;
  /** The recorded requests to `path` (without the query). */
  requestsTo(path: string): RecordedRequest[];
  close(): Promise<void>;
}

export interface StandInBehaviour {
  /**
   * The upstream no longer accepts the session cookie (its token changed): every cookie-checked route answers 401,
   * `ws-token` 200 `{success:false}`, a handshake 403, and tickets issued before are void, exactly as the original
   * answers a wrong cookie. The public version check still answers.
   */
  refuseAll: boolean;
}

export interface StandInUpstreamOptions {
  /** The upstream's own access token: the `maibot_session` cookie it accepts. */
  token: string;
  /** Listen on this Unix socket instead of a TCP port on 127.0.0.1 (a file there is replaced). */
  socketPath?: string;
}

const running = new Set<StandInUpstream>();

export async function startStandInUpstream(options: StandInUpstreamOptions): Promise<StandInUpstream> {
  const recorder = new Recorder();
  const tickets = new Tickets();
  const behaviour: StandInBehaviour = { refuseAll: false };
  const sessionValid = (session: string | undefined) => !behaviour.refuseAll && session === options.token;
  const channel = new StandInChannel(recorder, tickets, sessionValid);
  const eventStreams = new Map<ServerResponse, RecordedRequest>();
  const context: RouteContext = { recorder, tickets, sessionValid, eventStreams, config: { bot: defaultBotConfig() } };
  seedLogs(channel);

  const server = createServer((request, res) => {
    const recorded = recorder.record(request, false);
    route(request, res, recorded, context, consumeBody(request, recorded, recorder));
  });
  server.on('upgrade', (request, socket, head) => {
    const recorded = recorder.record(request, true);
    if (recorded.path !== '/api/webui/ws') {
      recorded.status = 404;
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    channel.upgrade(request, socket, head, recorded, cookieValue(request.headers.cookie, 'maibot_session'));
  });

  if (options.socketPath !== undefined) rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (options.socketPath !== undefined) server.listen(options.socketPath, resolve);
    else server.listen(0, '127.0.0.1', resolve);
  });
  const port = options.socketPath === undefined ? (server.address() as AddressInfo).port : 0;

  const upstream: StandInUpstream = {
    url: options.socketPath === undefined ? `http://127.0.0.1:${port}` : 'http://localhost',
    port,
    socketPath: options.socketPath,
    received: recorder.received,
    channelMessages: recorder.channelMessages,
    connections: channel.connections,
    get openSockets() {
      return channel.openSockets;
    },
    get outstandingTickets() {
      return tickets.outstanding;
    },
    emitLog: (entry = {}) => channel.emitLog(entry),
    emitMonitor: (event, data = {}, options = {}) => channel.emitMonitor(event, data, options.transient ?? false),
    emitProgress: (progress) => channel.emitProgress(progress),
    pushServerEvent: (data) => {
      for (const [res, recorded] of eventStreams) writeServerEvent(res, recorded, data);
    },
    setBehaviour: (change) => void Object.assign(behaviour, change),
    closeSockets: (code, reason) => channel.closeSockets(code, reason),
    waitFor: (check, timeoutMs, what) => recorder.waitFor(check, timeoutMs, what),
    requestsTo: (path) => recorder.received.filter((recorded) => recorded.path === path),
    close: async () => {
      running.delete(upstream);
      channel.terminate();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  running.add(upstream);
  return upstream;
}

/** Closes every stand-in still running; call it from afterAll. */
export async function stopAllStandInUpstreams(): Promise<void> {
  await Promise.all([...running].map((upstream) => upstream.close()));
}

/** The bot's config as GET /api/webui/config/bot answers it at start: a small part of the original's sections. */
function defaultBotConfig(): Record<string, unknown> {
  return { bot: { platform: 'qq', qq_account: 0, nickname: 'StandInBot', alias_names: [] }, personality: { personality: 'calm' } };
}

/** Three lines from before the test began, so a first snapshot is not empty: a minute apart, oldest first, with module styles. */
function seedLogs(channel: StandInChannel): void {
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  const style = (moduleColor: string) => ({ moduleColor, moduleBold: false });
  channel.logs.add({ at: minutesAgo(3), level: 'INFO', module: 'main', message: 'MaiBot started', ...style('#ffffff') });
  channel.logs.add({ at: minutesAgo(2), level: 'WARNING', module: 'config', message: 'no model configured', ...style('#ffaa00') });
  channel.logs.add({ at: minutesAgo(1), level: 'INFO', module: 'webui.unified_ws', message: 'channel ready', ...style('#5f87ff') });
}
