// The setups of the gateway comparison, started afresh for each round: the bench's upstream alone (direct); nginx and
// the Node proxies an operator would otherwise pick in front of it (peers/); this server in front of it with
// [webui.upstream], on Node (server), Bun and Deno.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, httpPostJson, makeTempDir, removeTempDir, spawnNode, stopChild, waitHealthy } from '../children.mjs';
import { UPSTREAM_TOKEN_VARIABLE, VERSION_PATH } from './bench-upstream.mjs';
import { startNginxProxy } from './nginx-proxy.mjs';

const script = (path) => fileURLToPath(new URL(path, import.meta.url));
const UPSTREAM_SCRIPT = script('./bench-upstream.mjs');

/** Every setup but direct, in the order of the table: the peers, then this server on each runtime. */
export const GATEWAY_PROXIES = ['nginx', 'bare', 'fastify', 'http-proxy-3', 'server', 'bun', 'deno'];
/** The Node peers: a script each, started with `--port N --upstream-port M`. */
const PEER_SCRIPTS = {
  bare: script('../peers/bare-forwarder.mjs'),
  fastify: script('../peers/fastify-http-proxy.mjs'),
  'http-proxy-3': script('../peers/http-proxy-3.mjs'),
};

/**
 * A bench script (`node <file> --port N ...args`) on a free port in a temp dir, under `prefix` (taskset), once `VERSION_PATH`
 * answers 200 on it.
 * @returns {Promise<{ child: import('../children.mjs').Child, port: number, stop: () => Promise<void> }>}
 */
async function startScript(label, file, { args = [], env = {}, prefix }) {
  const home = makeTempDir(label);
  const port = await freePort();
  const startedAt = performance.now();
  const child = spawnNode(file, ['--port', String(port), ...args], { cwd: home, port, logFile: join(home, 'output.log'), env, prefix });
  await waitHealthy(child, VERSION_PATH, startedAt);
  return {
    child,
    port,
    async stop() {
      await stopChild(child);
      removeTempDir(home);
    },
  };
}

/**
 * The bench's upstream on a free port, under `prefix` (taskset).
 * @returns {Promise<{ child: import('../children.mjs').Child, port: number, token: string, stop: () => Promise<void> }>}
 */
export async function startBenchUpstream(prefix) {
  const token = randomBytes(24).toString('hex');
  const started = await startScript('upstream', UPSTREAM_SCRIPT, { env: { [UPSTREAM_TOKEN_VARIABLE]: token }, prefix });
  return { ...started, token };
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
 * One round's targets: `direct` owns the upstream (its stop stops it); every one of `proxies` (GATEWAY_PROXIES) reaches
 * it, and counts its CPU per request as its store's (`storePid`). Each target carries the headers its requests need:
 * this server a login cookie of its own, nginx and the peers the upstream's cookie, which they pass on as it is.
 * @param {{ startServer: Function, pinning: import('../cpu-pinning.mjs').CpuPinning, proxies: string[] }} how
 */
export async function startGatewaySetups({ startServer, pinning, proxies }) {
  const upstream = await startBenchUpstream(pinning.upstreamPrefix);
  const upstreamCookie = `maibot_session=${upstream.token}`;
  const setups = {
    direct: { child: upstream.child, port: upstream.port, headers: { cookie: upstreamCookie }, stop: upstream.stop },
  };
  const behind = { storePid: upstream.child.pid, storeLabel: 'upstream' };
  try {
    for (const kind of GATEWAY_PROXIES.filter((name) => proxies.includes(name))) {
      if (kind === 'server' || kind === 'bun' || kind === 'deno') {
        const runtime = kind === 'server' ? undefined : kind;
        const server = await startServer('server', pinning, undefined, { ...gatewayConfig(upstream), runtime });
        setups[kind] = { ...server, headers: { cookie: await loginCookie(server) }, ...behind };
      } else {
        const proxy =
          kind === 'nginx'
            ? await startNginxProxy({ upstreamPort: upstream.port, healthPath: VERSION_PATH, prefix: pinning.prefix })
            : await startScript(kind, PEER_SCRIPTS[kind], { args: ['--upstream-port', String(upstream.port)], prefix: pinning.prefix });
        setups[kind] = { ...proxy, headers: { cookie: upstreamCookie }, ...behind };
      }
    }
  } catch (error) {
    await Promise.all(Object.values(setups).map((setup) => setup.stop()));
    throw error;
  }
  return setups;
}
