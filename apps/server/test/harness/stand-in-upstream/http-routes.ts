import type { IncomingMessage, ServerResponse } from 'node:http';
import { TICKET_LIFETIME_SECONDS, type Tickets } from './tickets.js';
import type { RecordedRequest, Recorder } from './recorder.js';

/** What the routes share with the rest of the stand-in. */
export interface RouteContext {
  recorder: Recorder;
  tickets: Tickets;
  /** Whether `session` (the `maibot_session` cookie's value) is the upstream's token, and the upstream accepts it now. */
  sessionValid(session: string | undefined): boolean;
  /** Open `text/event-stream` answers held by `?hold=1`, for pushServerEvent. */
  eventStreams: Map<ServerResponse, RecordedRequest>;
  /** The stand-in's bot config, read by GET and replaced by POST /api/webui/config/bot. */
  config: { bot: Record<string, unknown> };
}

/** The request as a handler sees it: its record, its query, and its body (counted as it streams; kept only when small). */
interface Exchange {
  request: IncomingMessage;
  res: ServerResponse;
  recorded: RecordedRequest;
  query: URLSearchParams;
  /** The body once it has ended: its first KEPT_BODY_BYTES bytes (a bigger body is counted, never held). */
  body: Promise<Buffer>;
  context: RouteContext;
}

type Handler = (exchange: Exchange) => void | Promise<void>;
interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** `public`: no cookie needed; `cookie`: 401 without the session cookie; `own`: the handler decides (ws-token). */
  access: 'public' | 'cookie' | 'own';
  handle: Handler;
}

const KEPT_BODY_BYTES = 1024 * 1024;
const DOWNLOAD_CHUNK = 64 * 1024;
/** The original's versions, as its version check reports them (contract §1). */
export const MAIN_PROGRAM_VERSION = '1.2.1';
export const REQUIRED_WEBUI_VERSION = '1.7.1';

/** Byte `offset` of every /download body: its offset modulo 256, so a reader can check each byte it got. */
export const downloadByteAt = (offset: number): number => offset % 256;
// DOWNLOAD_CHUNK is a multiple of 256: every full chunk is this same buffer.
const PATTERN = Buffer.from(Array.from({ length: DOWNLOAD_CHUNK }, (_, offset) => downloadByteAt(offset)));

/** Writes `status` and `headers` and notes the status in the request's record. */
export function head(
  exchange: Pick<Exchange, 'res' | 'recorded' | 'context'>,
  status: number,
  headers: Record<string, string | string[]>,
): void {
  exchange.res.writeHead(status, headers);
  exchange.recorded.status = status;
  exchange.context.recorder.changed();
}

/** A JSON answer, as FastAPI sends it. */
export function json(
  exchange: Pick<Exchange, 'res' | 'recorded' | 'context'>,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const text = JSON.stringify(body);
  head(exchange, status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  exchange.recorded.responseBytes = Buffer.byteLength(text);
  exchange.res.end(text);
}

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/api/webui/version-compatibility',
    access: 'public',
    handle: (exchange) => {
      const webuiVersion = exchange.query.get('webui_version');
      if (!webuiVersion) {
        const missing = { type: 'missing', loc: ['query', 'webui_version'], msg: 'Field required', input: null };
        return json(exchange, 422, { detail: [missing] });
      }
      json(exchange, 200, {
        status: 'compatible',
        main_program_version: MAIN_PROGRAM_VERSION,
        webui_version: webuiVersion,
        required_webui_version: REQUIRED_WEBUI_VERSION,
      });
    },
  },
  {
    method: 'GET',
    path: '/api/webui/ws-token',
    access: 'own',
    handle: (exchange) => {
      const session = cookieValue(exchange.request.headers.cookie, 'maibot_session');
      // Never a 401 here: the original answers 200 with success false, so its dashboard does not jump to its login.
      if (!exchange.context.sessionValid(session)) {
        const message = session ? 'the session has expired, log in again' : 'no credentials, log in first';
        return json(exchange, 200, { success: false, message, token: null, expires_in: 0 });
      }
      json(exchange, 200, { success: true, token: exchange.context.tickets.issue(session as string), expires_in: TICKET_LIFETIME_SECONDS });
    },
  },
  {
    method: 'GET',
    path: '/api/webui/config/bot',
    access: 'cookie',
    handle: (exchange) => json(exchange, 200, { success: true, config: exchange.context.config.bot }),
  },
  {
    method: 'POST',
    path: '/api/webui/config/bot',
    access: 'cookie',
    handle: async (exchange) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse((await exchange.body).toString('utf8'));
      } catch {
        return json(exchange, 422, { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }] });
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return json(exchange, 422, { detail: [{ type: 'dict_type', loc: ['body'], msg: 'Input should be a valid dictionary' }] });
      }
      exchange.context.config.bot = parsed as Record<string, unknown>;
      json(exchange, 200, { success: true, message: 'saved', config: parsed });
    },
  },
  {
    method: 'POST',
    path: '/api/webui/upload',
    access: 'cookie',
    handle: async (exchange) => {
      await exchange.body;
      json(exchange, 200, { bytes: exchange.recorded.bodyBytes });
    },
  },
  { method: 'GET', path: '/api/webui/download', access: 'cookie', handle: download },
  { method: 'GET', path: '/api/webui/events', access: 'cookie', handle: serverEvents },
  {
    method: 'GET',
    path: '/api/webui/slow',
    access: 'cookie',
    handle: (exchange) => {
      const ms = Math.max(0, Number(exchange.query.get('ms') ?? '0') || 0);
      const timer = setTimeout(() => json(exchange, 200, { slept: ms }), ms);
      exchange.res.once('close', () => clearTimeout(timer));
    },
  },
  {
    method: 'GET',
    path: '/api/webui/set-cookies',
    access: 'cookie',
    // One cookie of the upstream's own, and one that tries to overwrite the gateway's session cookie.
    handle: (exchange) =>
      json(
        exchange,
        200,
        { set: ['maibot_x', 'bot_session'] },
        { 'set-cookie': ['maibot_x=1; Path=/', 'bot_session=evil; Path=/; HttpOnly'] },
      ),
  },
  { method: 'GET', path: '/api/chat/ping', access: 'cookie', handle: (exchange) => json(exchange, 200, { pong: true }) },
  {
    method: 'GET',
    path: '/',
    access: 'cookie',
    handle: (exchange) => {
      const page =
        '<!doctype html><html><head><title>Stand-in bot dashboard</title></head><body><div id="root">stand-in</div></body></html>';
      head(exchange, 200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(page)) });
      exchange.recorded.responseBytes = Buffer.byteLength(page);
      exchange.res.end(page);
    },
  },
];

/** Answers one plain HTTP request (its body is already being counted into `recorded`). */
export function route(
  request: IncomingMessage,
  res: ServerResponse,
  recorded: RecordedRequest,
  context: RouteContext,
  body: Promise<Buffer>,
): void {
  const url = new URL(recorded.url, 'http://stand-in');
  const exchange: Exchange = { request, res, recorded, query: url.searchParams, body, context };
  const onPath = ROUTES.filter((candidate) => candidate.path === url.pathname);
  // HEAD is answered as GET; Node leaves the body out.
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const found = onPath.find((candidate) => candidate.method === method);
  if (onPath.length === 0) return json(exchange, 404, { detail: 'Not Found' });
  if (!found)
    return json(exchange, 405, { detail: 'Method Not Allowed' }, { allow: onPath.map((candidate) => candidate.method).join(', ') });
  if (found.access === 'cookie' && !context.sessionValid(cookieValue(request.headers.cookie, 'maibot_session'))) {
    return json(exchange, 401, { detail: 'token invalid or expired' });
  }
  void Promise.resolve(found.handle(exchange)).catch((error: unknown) => {
    if (!res.headersSent) json(exchange, 500, { detail: String(error) });
    else res.destroy();
  });
}

/** Counts the body as it streams into `recorded`; resolves at its end with the first KEPT_BODY_BYTES bytes. */
export function consumeBody(request: IncomingMessage, recorded: RecordedRequest, recorder: Recorder): Promise<Buffer> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  return new Promise((resolve) => {
    request.on('data', (chunk: Buffer) => {
      recorded.firstChunkAt ??= performance.now();
      recorded.bodyBytes += chunk.length;
      if (keptBytes < KEPT_BODY_BYTES) {
        kept.push(chunk);
        keptBytes += chunk.length;
      }
      recorder.changed();
    });
    const ended = () => {
      recorded.bodyEndedAt ??= performance.now();
      recorder.changed();
      resolve(Buffer.concat(kept));
    };
    request.once('end', ended);
    // A body cut off by the sender ends here too: what arrived stays counted.
    request.once('close', ended);
  });
}

/** The value of cookie `name` in a Cookie header; the last one wins, as in the original's parser. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  let value: string | undefined;
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) value = part.slice(eq + 1).trim();
  }
  return value;
}

/** `?bytes=N` bytes of downloadByteAt, a chunk at a time and only as fast as the reader takes them; `?chunked=1` sends no length. */
async function download(exchange: Exchange): Promise<void> {
  const total = Math.max(0, Math.trunc(Number(exchange.query.get('bytes') ?? '0')) || 0);
  const length: Record<string, string> = exchange.query.get('chunked') === '1' ? {} : { 'content-length': String(total) };
  head(exchange, 200, { 'content-type': 'application/octet-stream', ...length });
  const { res, recorded } = exchange;
  while (recorded.responseBytes < total && !res.destroyed) {
    const chunk = PATTERN.subarray(0, Math.min(DOWNLOAD_CHUNK, total - recorded.responseBytes));
    recorded.responseBytes += chunk.length;
    const more = res.write(chunk);
    exchange.context.recorder.changed();
    if (!more) await new Promise<void>((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
  }
  res.end();
}

/** `?count=N` events (3 by default), then the end; `?hold=1` keeps the stream open for pushServerEvent until the reader leaves. */
function serverEvents(exchange: Exchange): void {
  const count = Math.max(0, Math.trunc(Number(exchange.query.get('count') ?? '3')) || 0);
  head(exchange, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let n = 1; n <= count; n += 1) writeServerEvent(exchange.res, exchange.recorded, { n });
  if (exchange.query.get('hold') !== '1') return void exchange.res.end();
  const streams = exchange.context.eventStreams;
  streams.set(exchange.res, exchange.recorded);
  exchange.res.once('close', () => streams.delete(exchange.res));
}

/** One `tick` event whose data is `data` as JSON. */
export function writeServerEvent(res: ServerResponse, recorded: RecordedRequest, data: unknown): void {
  const text = `event: tick\ndata: ${JSON.stringify(data)}\n\n`;
  recorded.responseBytes += Buffer.byteLength(text);
  res.write(text);
}
