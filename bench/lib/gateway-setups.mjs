// The three setups of the gateway comparison, started afresh for each round: the bench's upstream alone (direct),
// the real server in front of it with [webui.upstream] (server), and nginx in front of it (nginx).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, httpPostJson, makeTempDir, removeTempDir, spawnNode, stopChild, waitHealthy } from './children.mjs';
import { UPSTREAM_TOKEN_VARIABLE, VERSION_PATH } from './bench-upstream.mjs';
import { startNginxProxy } from './nginx-proxy.mjs';

const UPSTREAM_SCRIPT = fileURLToPath(new URL('./bench-upstream.mjs', import.meta.url));

/**
 * The bench's upstream on a free port, under `prefix` (taskset).
 * @returns {Promise<{ child: import('./children.mjs').Child, port: number, token: string, stop: () => Promise<void> }>}
 */
export async function startBenchUpstream(prefix) {
  const home = makeTempDir('upstream');
  const port = await freePort();
  const token = randomBytes(24).toString('hex');
  const startedAt = performance.now();
  const child = spawnNode(UPSTREAM_SCRIPT, ['--port', String(port)], {
    cwd: home,
    port,
    logFile: join(home, 'output.log'),
    env: { [UPSTREAM_TOKEN_VARIABLE]: token },
    prefix,
  });
  await waitHealthy(child, VERSION_PATH, startedAt);
  return {
    child,
    port,
    token,
    async stop() {
      await stopChild(child);
      removeTempDir(home);
    },
  };
}

/**
 * The server's config for `upstream`: its URL, and its cookie as an operator would give it, read from the environment.
 * @returns {{ config: string, env: Record<string, string> }}
 */
export function gatewayConfig(upstream) {
  return {
    config: [
      '[webui.upstream]',
      `url = "http://127.0.0.1:${upstream.port}"`,
      '[webui.upstream.headers]',
      `Cookie = "maibot_session=\${${UPSTREAM_TOKEN_VARIABLE}}"`,
      '',
    ].join('\n'),
    env: { [UPSTREAM_TOKEN_VARIABLE]: upstream.token },
  };
}

/** A real login on `server` (POST /auth/verify with its token): the `bot_session=<value>` its Set-Cookie gave. */
export async function loginCookie(server) {
  const answer = await httpPostJson(server.port, '/api/webui/auth/verify', { token: server.token });
  const cookie = answer.headers['set-cookie']?.find((line) => line.startsWith('bot_session='))?.split(';')[0];
  if (answer.status !== 200 || cookie === undefined) throw new Error(`login on the gateway failed: ${answer.status} ${answer.body}`);
  return cookie;
}

/**
 * One round's targets: `direct` owns the upstream (its stop stops it); `server` and `nginx` reach it, and count its CPU
 * per request as their store's (`storePid`). Each target carries the headers its requests need.
 * @param {{ startServer: Function, pinning: import('./cpu-pinning.mjs').CpuPinning, withNginx: boolean }} how
 */
export async function startGatewaySetups({ startServer, pinning, withNginx }) {
  const upstream = await startBenchUpstream(pinning.upstreamPrefix);
  const upstreamCookie = `maibot_session=${upstream.token}`;
  const setups = {
    direct: { child: upstream.child, port: upstream.port, headers: { cookie: upstreamCookie }, stop: upstream.stop },
  };
  const server = await startServer('server', pinning, undefined, gatewayConfig(upstream));
  const serverCookie = await loginCookie(server);
  setups.server = { ...server, headers: { cookie: serverCookie }, storePid: upstream.child.pid, storeLabel: 'upstream' };
  if (withNginx) {
    const nginx = await startNginxProxy({ upstreamPort: upstream.port, healthPath: VERSION_PATH, prefix: pinning.prefix });
    setups.nginx = { ...nginx, headers: { cookie: upstreamCookie }, storePid: upstream.child.pid, storeLabel: 'upstream' };
  }
  return setups;
}
