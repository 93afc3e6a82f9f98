// The bare baseline: node:http and ws doing the same work per request as the real server, nothing more.
// `node bench/baseline-server.mjs --port N --data-dir DIR` reads DIR/webui.json once and re-reads it on change.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';

const PREFIX = '/api/webui';
const TICKET_TTL_MS = 60_000;
const MAX_TICKETS = 10_000;
const MAX_BODY_BYTES = 16 * 1024;
const SESSION_MAX_AGE = 7 * 86_400;

const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const port = Number(option('--port') ?? 0);
const file = join(option('--data-dir') ?? 'data', 'webui.json');
// --tls-cert and --tls-key: the same work over node:https (the HTTPS comparison, bench/lib/tls.mjs).
const tlsCert = option('--tls-cert');
const tlsKey = option('--tls-key');
const createServer = (listener) =>
  tlsCert && tlsKey
    ? https.createServer({ cert: readFileSync(tlsCert), key: readFileSync(tlsKey) }, listener)
    : http.createServer(listener);

// The token record lives in memory, refreshed when the file changes (same 250 ms stat poll as the server).
let record = loadRecord();
let signature = fileSignature();
setInterval(() => {
  const now = fileSignature();
  if (now === signature) return;
  signature = now;
  record = loadRecord();
}, 250).unref();

function loadRecord() {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const token = Buffer.from(raw.access_token, 'utf8');
  const source = raw.token_source === 'configured' ? 'configured' : 'temporary';
  return { token, source, firstSetup: raw.first_setup_completed !== true };
}

function fileSignature() {
  const s = statSync(file);
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}

/** Constant-time: timingSafeEqual over equal-length buffers; a length mismatch still compares. */
function isToken(candidate) {
  const presented = Buffer.from(candidate, 'utf8');
  if (presented.length !== record.token.length) {
    timingSafeEqual(record.token, record.token);
    return false;
  }
  return timingSafeEqual(presented, record.token);
}

/** The bot_session values of a Cookie header: the same split, trim and unquote as the server, plus percent-decoding. */
function sessionCookies(header) {
  if (!header) return [];
  const values = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== 'bot_session') continue;
    let raw = pair.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    values.push(raw);
    if (raw.includes('%')) {
      try {
        const decoded = decodeURIComponent(raw);
        if (decoded !== raw) values.push(decoded);
      } catch {
        // not percent-encoded after all
      }
    }
  }
  return values;
}

// Ban records and tickets: plain Maps, looked up per request like the server's short-lived store.
const bans = new Map();
/** @type {Map<string, {sessionToken: string, expiresAt: number}>} */
const tickets = new Map();
setInterval(() => {
  const now = Date.now();
  for (const [ticket, grant] of tickets) if (grant.expiresAt <= now) tickets.delete(ticket);
}, 30_000).unref();

function isBanned(ip) {
  const until = bans.get(ip);
  return until !== undefined && until > Date.now();
}

/** The valid session token of the request, or null. */
function validSession(req) {
  const values = sessionCookies(req.headers.cookie);
  if (values.length === 0 || isBanned(req.socket.remoteAddress)) return null;
  for (const value of values) if (isToken(value)) return value;
  return null;
}

function send(res, status, body, extraHeaders = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...extraHeaders,
  });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const server = createServer(async (req, res) => {
  const path = req.url?.split('?')[0] ?? '';
  if (req.method === 'GET' && path === `${PREFIX}/health`) return send(res, 200, { status: 'healthy', service: 'webui' });

  if (req.method === 'GET' && path === `${PREFIX}/auth/check`) {
    if (!validSession(req)) return send(res, 200, { authenticated: false });
    return send(res, 200, { authenticated: true, token_source: record.source, requires_custom_token: record.source === 'temporary' });
  }

  if (req.method === 'POST' && path === `${PREFIX}/auth/verify`) {
    if (isBanned(req.socket.remoteAddress)) return send(res, 429, { detail: 'banned', code: 'too_many_attempts' });
    let token;
    try {
      token = JSON.parse(await readBody(req)).token;
    } catch {
      return send(res, 400, { detail: 'The body is not valid JSON.', code: 'invalid_json' });
    }
    if (typeof token !== 'string') return send(res, 422, { detail: 'token must be a string', code: 'invalid_body' });
    if (!isToken(token)) return send(res, 200, { valid: false, message: 'Invalid token.' });
    bans.delete(req.socket.remoteAddress);
    const cookie = `bot_session=${encodeURIComponent(token)}; Max-Age=${SESSION_MAX_AGE}; Path=/; HttpOnly; SameSite=Lax`;
    return send(
      res,
      200,
      {
        valid: true,
        message: 'Token verified; logged in.',
        is_first_setup: record.firstSetup,
        token_source: record.source,
        requires_custom_token: record.source === 'temporary',
      },
      { 'set-cookie': cookie },
    );
  }

  if (req.method === 'GET' && path === `${PREFIX}/ws-token`) {
    const session = validSession(req);
    if (!session) return send(res, 200, { success: false, message: 'Not logged in: call POST /api/webui/auth/verify first.' });
    const ticket = randomBytes(32).toString('base64url');
    if (tickets.size >= MAX_TICKETS) tickets.delete(/** @type {string} */ (tickets.keys().next().value));
    tickets.set(ticket, { sessionToken: session, expiresAt: Date.now() + TICKET_TTL_MS });
    return send(res, 200, { success: true, token: ticket, expires_in: 60 });
  }

  send(res, 404, { detail: `No endpoint at ${req.method} ${path}.`, code: 'not_found' });
});

// WebSocket: the same ticket check (single use, expiry, session still valid), then ready.
const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
server.on('upgrade', (req, socket, head) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const ticket = url.searchParams.get('token');
  const grant = url.pathname === `${PREFIX}/ws` && ticket ? tickets.get(ticket) : undefined;
  if (ticket) tickets.delete(ticket);
  if (!grant || grant.expiresAt <= Date.now() || !isToken(grant.sessionToken)) {
    const body = JSON.stringify({ detail: 'The ticket is unknown or was already used.', code: 'unknown_ticket' });
    socket.end(
      `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: ` +
        `close\r\n\r\n${body}`,
    );
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.send(
      JSON.stringify({ op: 'event', domain: 'system', event: 'ready', data: { connection_id: randomUUID(), timestamp: Date.now() } }),
    );
  });
});

server.keepAliveTimeout = 5_000;
server.listen(port, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.stdout.write(`${JSON.stringify({ msg: 'baseline listening', port: address.port })}\n`);
});
process.on('SIGTERM', () => {
  for (const client of wss.clients) client.terminate();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
