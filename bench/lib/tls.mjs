// HTTPS without a proxy (issue 46): GET /auth/check with a valid cookie over TLS and keep-alive, this server against a bare
// node:https server doing the same work (bench/baseline-server.mjs with the same pair), alternating, round by round.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { freePort, makeTempDir, removeTempDir, sleep, spawnClean, stopChild, tail } from './children.mjs';
import { markdownTable, pairedRatio, summarise } from './report.mjs';
import { runRounds } from './rounds.mjs';
import { runtimeCommand } from './runtimes.mjs';

const run = promisify(execFile);
const BASELINE_SCRIPT = fileURLToPath(new URL('../baseline-server.mjs', import.meta.url));
export const TLS_CASE_ID = 'tls-check';
/** What the issue asks: this server's /auth/check over TLS at least this share of a bare node:https server's. */
export const TLS_TARGET = 0.9;
const CHECK = '/api/webui/auth/check';

/** A P-256 key and a self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
async function makePair(dir) {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ]);
  return { cert, key };
}

/** GET over https without checking the certificate (the bench's own self-signed one): the status and the body. */
function httpsGet(port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path, headers, agent: false, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`GET ${path} timed out`)));
  });
}

/** Starts `kind` (server: this server's Node bundle; bare: the baseline over node:https) and waits for its first 200. */
async function startTlsTarget(kind, pair, pinning) {
  const home = makeTempDir(`tls-${kind}`);
  const dataDir = join(home, 'data');
  const port = await freePort();
  const logFile = join(home, 'output.log');
  let commandLine;
  if (kind === 'bare') {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const record = { access_token: randomBytes(32).toString('hex'), token_source: 'temporary', first_setup_completed: false };
    writeFileSync(join(dataDir, 'webui.json'), `${JSON.stringify(record)}\n`, { mode: 0o600 });
    commandLine = [
      process.execPath,
      BASELINE_SCRIPT,
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--tls-cert',
      pair.cert,
      '--tls-key',
      pair.key,
    ];
  } else {
    commandLine = runtimeCommand('node', { args: ['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], dataDir });
  }
  const env = kind === 'server' ? { WEBUI_TLS_CERT: pair.cert, WEBUI_TLS_KEY: pair.key } : {};
  const child = spawnClean(commandLine, { cwd: home, port, logFile, env, prefix: pinning.prefix });
  const deadline = performance.now() + 15_000;
  for (;;) {
    if (child.exited()) throw new Error(`the ${kind} exited before answering; its output:\n${tail(logFile)}`);
    if ((await httpsGet(port, '/api/webui/health').catch(() => ({ status: 0 }))).status === 200) break;
    if (performance.now() > deadline) throw new Error(`no 200 from the ${kind} over https within 15 s; output:\n${tail(logFile)}`);
    await sleep(10);
  }
  const token = JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')).access_token;
  // Both must do the work measured: the cookie is the session's, the answer says so.
  const check = await httpsGet(port, CHECK, { cookie: `bot_session=${token}` });
  if (check.status !== 200 || JSON.parse(check.body).authenticated !== true) {
    await stopChild(child);
    throw new Error(`the ${kind} does not answer ${CHECK} with the session: ${check.status} ${check.body}`);
  }
  return {
    kind,
    child,
    port,
    token,
    cookie: `bot_session=${token}`,
    async stop() {
      await stopChild(child);
      removeTempDir(home);
    },
  };
}

/**
 * The comparison: each round on fresh processes, the case on both in alternating slices; the ratio is server / bare
 * req/s per round and its median, against TLS_TARGET.
 */
export async function compareTls({ pinning, options, log }) {
  const home = makeTempDir('tls-pair');
  const pair = await makePair(home);
  const cases = [
    {
      id: TLS_CASE_ID,
      label: 'GET /auth/check over TLS (valid cookie, keep-alive)',
      run: (target, o) =>
        o.httpLoad({
          url: `https://127.0.0.1:${target.port}${CHECK}`,
          headers: { cookie: target.cookie },
          connections: o.connections,
          duration: o.duration,
        }),
    },
  ];
  log(`HTTPS: ${cases[0].label}, this server (server) against a bare node:https server doing the same work (bare), one P-256 pair`);
  try {
    const raw = await runRounds({
      cases,
      // Slices of 5 s or more: every slice opens its connections anew, and with TLS each is a handshake; keep-alive is measured.
      options: { ...options, slices: Math.max(1, Math.min(options.slices, Math.floor(options.duration / 5))) },
      log,
      startTargets: async () => ({
        server: await startTlsTarget('server', pair, pinning),
        bare: await startTlsTarget('bare', pair, pinning),
      }),
    });
    const runs = raw[TLS_CASE_ID];
    const summaries = { server: summarise(runs.server), bare: summarise(runs.bare) };
    const ratio = pairedRatio(runs.server, runs.bare);
    log();
    log(
      markdownTable(
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'errors'],
        Object.entries(summaries).map(([kind, s]) => [
          kind,
          s.rps.toFixed(0),
          s.p50.toFixed(2),
          s.p99.toFixed(2),
          s.cpuUsPerRequest.toFixed(0),
          String(s.errors + s.non2xx),
        ]),
        [false, true, true, true, true, true],
      ),
    );
    const pass = ratio.median >= TLS_TARGET;
    log(
      `  ${pass ? 'PASS' : 'FAIL'}  server / bare node:https >= ${TLS_TARGET}: ${ratio.median.toFixed(2)} (rounds ${ratio.perRound.map((x) => x.toFixed(2)).join(' ')})`,
    );
    log();
    const failures = Object.entries(summaries).flatMap(([kind, s]) =>
      s.non2xx > 0 || s.errors > 0 || s.requests === 0
        ? [`${cases[0].label} on the ${kind}: ${s.requests} completed, ${s.non2xx} non-2xx, ${s.errors} errors`]
        : [],
    );
    return { summaries, ratio, target: TLS_TARGET, pass, runs, failures };
  } finally {
    removeTempDir(home);
  }
}
