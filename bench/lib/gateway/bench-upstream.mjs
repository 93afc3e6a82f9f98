#!/usr/bin/env node
// The gateway comparison's stand-in for the bot's own backend: a bare node:http server, started as a child
// process (`node bench-upstream.mjs --port N`, its cookie token in BENCH_UPSTREAM_TOKEN). Like the original it
// wants `maibot_session=<token>` on every route but its version check, and answers 401 without it.
import http from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const UPSTREAM_TOKEN_VARIABLE = 'BENCH_UPSTREAM_TOKEN';
/** The small JSON GET every setup is driven with: the dashboard's config page reads it. */
export const CONFIG_PATH = '/api/webui/config/bot';
/** Public, as the original's: the health poll while it starts. */
export const VERSION_PATH = '/api/webui/version-compatibility';
/** POST: reads the body to its end and answers its length. */
export const UPLOAD_PATH = '/api/webui/upload';
/** GET `?bytes=N`: N bytes, a chunk at a time and only as fast as the reader takes them. */
export const DOWNLOAD_PATH = '/api/webui/download';

const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const CONFIG = JSON.stringify({
  success: true,
  config: { bot: { platform: 'qq', qq_account: 0, nickname: 'BenchBot', alias_names: [] }, personality: { personality: 'calm' } },
});

// Run as a script it serves; imported (by the bench) it only lends its paths.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) serve();

function serve() {
  const { values } = parseArgs({ options: { port: { type: 'string' } } });
  const token = process.env[UPSTREAM_TOKEN_VARIABLE];
  if (!values.port || !token) throw new Error(`bench-upstream: --port and ${UPSTREAM_TOKEN_VARIABLE} are needed`);
  const wanted = `maibot_session=${token}`;
  const server = http.createServer((req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?');
    if (path === VERSION_PATH) return json(res, 200, '{"compatible":true}');
    // The original's check: its own cookie, anywhere in the header.
    if (!(req.headers.cookie ?? '').split(';').some((part) => part.trim() === wanted))
      return json(res, 401, '{"detail":"token invalid or expired"}');
    if (path === CONFIG_PATH && req.method === 'GET') return json(res, 200, CONFIG);
    if (path === UPLOAD_PATH && req.method === 'POST') return upload(req, res);
    if (path === DOWNLOAD_PATH && req.method === 'GET') return void download(res, Number(new URLSearchParams(query).get('bytes') ?? 0));
    json(res, 404, '{"detail":"Not Found"}');
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(values.port), '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function upload(req, res) {
  let bytes = 0;
  req.on('data', (chunk) => (bytes += chunk.length));
  req.on('end', () => json(res, 200, JSON.stringify({ bytes })));
}

async function download(res, total) {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
  for (let sent = 0; sent < total && !res.destroyed;) {
    const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, total - sent));
    sent += chunk.length;
    if (!res.write(chunk)) await new Promise((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
  }
  res.end();
}
