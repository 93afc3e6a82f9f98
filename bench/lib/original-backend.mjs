// The bot's original backend (the Python FastAPI app this API's gateway fronts), run by the scripts of its tools
// directory (kept outside the repository; its README says how to set it up): its lightest route directly against the same
// route through this server with [webui.upstream] pointing at it, in the same rounds. Only with `--original-backend DIR`;
// the backend's code is never copied here, the scripts run it from their own checkout.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { freePort, httpGet, makeTempDir, removeTempDir, rssBytes } from './children.mjs';
import { CONFIG_PATH, VERSION_PATH } from './gateway/bench-upstream.mjs';
import { gatewayConfig, loginCookie } from './gateway/gateway-setups.mjs';
import { nginxMissing, startNginxProxy } from './gateway/nginx-proxy.mjs';
import { markdownTable, pairedRatio, summarise } from './report.mjs';
import { runRounds } from './rounds.mjs';

export const ORIGINAL_CASE_ID = 'original-backend';
/** This server at least this share of the backend's req/s on its lightest route, median of the per-round ratios. */
export const ORIGINAL_TARGET = 0.95;
// A query parameter the route requires (1 to 64 characters); any version gives the same small JSON.
const LIGHTEST = `${VERSION_PATH}?webui_version=1.0.0`;

const ORIGINAL_CASE = {
  id: ORIGINAL_CASE_ID,
  label: `GET ${VERSION_PATH.replace('/api/webui', '')}`,
  run: (target, o) =>
    o.httpLoad({
      url: `http://127.0.0.1:${target.port}${LIGHTEST}`,
      headers: target.headers,
      connections: o.connections,
      duration: o.duration,
    }),
};

/** Why the original backend cannot run from `dir`, or null when its start and stop scripts are there. */
export function originalBackendMissing(dir) {
  try {
    for (const name of ['start.sh', 'stop.sh']) accessSync(join(dir, name), constants.X_OK);
    return null;
  } catch {
    return `${dir} has no executable start.sh and stop.sh: it should be the original backend's tools directory (its README says how to set it up)`;
  }
}

/**
 * Starts the backend once under `prefix` (the load generator's CPUs, as the bench's upstream), with a token of the bench's
 * and only its WebUI (MAIBOT_WEBUI_BARE=1). Its start script waits until it answers.
 */
function startOriginalBackend(dir, port, prefix) {
  const home = makeTempDir('original');
  const token = `Bench-Token_${randomBytes(12).toString('hex')}`;
  const env = { ...process.env, MAIBOT_TOKEN: token, MAIBOT_WEBUI_BARE: '1', START_TIMEOUT: '180' };
  const [command, ...args] = [...prefix, join(dir, 'start.sh'), String(port), join(home, 'root')];
  const started = spawnSync(/** @type {string} */ (command), args, { env, encoding: 'utf8' });
  const pid = Number(/^PID=(\d+)$/m.exec(started.stdout ?? '')?.[1]);
  if (started.status !== 0 || !(pid > 0)) {
    removeTempDir(home);
    throw new Error(
      `the original backend did not start (${join(dir, 'start.sh')}, exit ${started.status}); is it set up (its README)?\n` +
        `${started.stdout ?? ''}${started.stderr ?? ''}`.trim().slice(-2000),
    );
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    port,
    token,
    child: { pid, port, logFile: join(home, 'root', 'server.log'), exited: () => !alive() },
    stop() {
      spawnSync(join(dir, 'stop.sh'), [join(home, 'root')], { stdio: 'ignore' });
      removeTempDir(home);
    },
  };
}

/**
 * Rounds of the backend's lightest route directly (`direct`, the one backend for every round) and through a fresh server
 * each round (`server`, with the backend's cookie in [webui.upstream.headers] and driven with a login of its own).
 * @param {{ dir: string, startServer: Function, pinning: any, options: any, log: (line?: string) => void }} run
 */
export async function compareOriginalBackend({ dir, startServer, pinning, options, log }) {
  const port = await freePort();
  log(
    `Original backend: ${dir}/start.sh on port ${port} (${pinning.upstreamDescription}); ${ORIGINAL_CASE.label} directly and through this server`,
  );
  const backend = startOriginalBackend(dir, port, pinning.upstreamPrefix);
  const noNginx = nginxMissing();
  const withNginx = noNginx === null;
  if (!withNginx) log(`  (no nginx here, so no reference row: ${noNginx})`);
  try {
    const raw = await runRounds({
      cases: [ORIGINAL_CASE],
      options,
      log,
      startTargets: async () => {
        const server = await startServer('server', pinning, undefined, gatewayConfig(backend));
        let cookie;
        let nginx;
        try {
          cookie = await loginCookie(server);
          if (withNginx)
            nginx = await startNginxProxy({
              upstreamPort: port,
              healthPath: LIGHTEST,
              prefix: pinning.prefix,
              headers: gatewayHeaders(backend),
            });
        } catch (error) {
          // Nothing of this round is left running when a part of it does not start.
          await server.stop();
          throw error;
        }
        const direct = { child: backend.child, port, headers: { cookie: `maibot_session=${backend.token}` }, stop: async () => {} };
        const behind = { storePid: backend.child.pid, storeLabel: 'backend' };
        return {
          direct,
          ...(nginx ? { nginx: { ...nginx, headers: direct.headers, ...behind } } : {}),
          server: { ...server, headers: { cookie }, ...behind },
        };
      },
      onStarted: (targets) => requireForwardedLogin(targets, log),
    });
    const runs = raw[ORIGINAL_CASE_ID];
    const summaries = Object.fromEntries(Object.entries(runs).map(([kind, rounds]) => [kind, summarise(rounds)]));
    const ratio = pairedRatio(runs.server, runs.direct);
    const reference = runs.nginx === undefined ? undefined : pairedRatio(runs.nginx, runs.direct);
    const verdict = {
      target: `${ORIGINAL_CASE.label} of the original backend through this server >= ${ORIGINAL_TARGET} x directly`,
      measured:
        `${ratio.median.toFixed(2)} x (per round ${ratio.perRound.map((x) => x.toFixed(2)).join(' ')})` +
        (reference ? `; nginx sending the same headers ${reference.median.toFixed(2)} x` : ''),
      pass: ratio.median >= ORIGINAL_TARGET,
    };
    log();
    log(`Original backend (median of ${options.rounds} round(s) of ${options.duration} s, ${options.connections} connections)`);
    log();
    log(originalTable(summaries, { server: ratio, nginx: reference }, rssBytes(backend.child.pid)));
    log();
    log(`  ${verdict.pass ? 'PASS' : 'FAIL'}  ${verdict.target}: ${verdict.measured}`);
    log();
    const failures = Object.entries(summaries).flatMap(([kind, s]) =>
      s.non2xx > 0 || s.errors > 0 || s.requests === 0
        ? [`original backend ${ORIGINAL_CASE.label} ${kind}: ${s.requests} completed, ${s.non2xx} non-2xx, ${s.errors} errors`]
        : [],
    );
    return { summaries, ratio, ...(reference ? { nginxRatio: reference } : {}), runs: raw, target: verdict, failures };
  } finally {
    backend.stop();
  }
}

/**
 * Both answer the lightest route alike, and the backend really checks its cookie on what the server forwards: its config
 * route refuses a request without `maibot_session` and answers the server's forward, which adds it from
 * [webui.upstream.headers].
 */
async function requireForwardedLogin({ direct, server }, log) {
  const [a, b, refused, forwarded] = [
    await httpGet(direct.port, LIGHTEST, direct.headers),
    await httpGet(server.port, LIGHTEST, server.headers),
    await httpGet(direct.port, CONFIG_PATH),
    await httpGet(server.port, CONFIG_PATH, server.headers),
  ];
  const problems = [
    ...(a.status !== 200 || a.body !== b.body
      ? [`${LIGHTEST}: directly ${a.status} ${a.body}, through the server ${b.status} ${b.body}`]
      : []),
    ...(refused.status !== 401 ? [`${CONFIG_PATH} without the backend's cookie: ${refused.status}, expected 401`] : []),
    ...(forwarded.status !== 200 ? [`${CONFIG_PATH} through the server: ${forwarded.status} ${forwarded.body.slice(0, 200)}`] : []),
  ];
  if (problems.length === 0) return;
  for (const problem of problems) log(`PREFLIGHT FAIL ${problem}`);
  throw new Error('the original backend and the server in front of it do not answer as expected; nothing was measured');
}

function originalTable(summaries, ratios, backendRss) {
  const num = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
  const header = ['Setup', 'req/s', 'x direct', 'x direct per round', 'p50 / p99 ms', 'CPU us/req proxy', 'CPU us/req backend', 'RSS MB'];
  const { direct: d } = summaries;
  const through = (label, s, ratio) => [
    label,
    num(s.rps),
    num(ratio.median, 2),
    ratio.perRound.map((x) => num(x, 2)).join(' '),
    `${num(s.p50, 2)} / ${num(s.p99, 2)}`,
    num(s.cpuUsPerRequest),
    num(s.storeCpuUsPerRequest),
    num(s.rssMb, 1),
  ];
  const rows = [
    [
      'original backend, directly',
      num(d.rps),
      '1',
      '',
      `${num(d.p50, 2)} / ${num(d.p99, 2)}`,
      '-',
      num(d.cpuUsPerRequest),
      num(backendRss / 1024 ** 2, 1),
    ],
    ...(ratios.nginx ? [through(NGINX_LABEL, summaries.nginx, ratios.nginx)] : []),
    through('through this server', summaries.server, ratios.server),
  ];
  return markdownTable(header, rows, [false, true, true, true, true, true, true, true]);
}

const NGINX_LABEL = 'nginx, sending the same headers (no login, no signing)';

/**
 * What this server sends the backend for the lightest route (docs/decisions/0028-gateway-forwarding-rules.md), as fixed
 * values nginx sets: the reference row, the cost of the hop and of these headers to the backend without any of this
 * server's work. The route is public, so the caller is `anonymous`; the assertion has the real one's claims and length,
 * signed with a key of its own (nginx sends the same one every time; the backend reads none of it). `$` names an nginx
 * variable.
 */
function gatewayHeaders(backend) {
  const base64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    sub: 'anonymous',
    scope: 'none',
    method: 'GET',
    path: VERSION_PATH,
    jti: randomUUID(),
    iss: 'webui',
    aud: 'upstream',
    iat,
    exp: iat + 60,
  };
  const signed = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
  const assertion = `${signed}.${createHmac('sha256', randomBytes(32)).update(signed).digest('base64url')}`;
  return {
    Host: `127.0.0.1:${backend.port}`,
    Connection: 'keep-alive',
    'Accept-Encoding': 'identity',
    'X-Forwarded-For': '$remote_addr',
    'X-Forwarded-Proto': '$scheme',
    'X-Forwarded-Host': '$http_host',
    Cookie: `maibot_session=${backend.token}`,
    'X-WebUI-Principal': 'anonymous',
    'X-WebUI-Scope': 'none',
    'X-WebUI-Assertion': assertion,
  };
}
