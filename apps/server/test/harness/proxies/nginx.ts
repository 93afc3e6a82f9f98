import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopDaemon, waitForPort } from '../processes/daemon-process.js';
import { freePort, makeTempDir } from '../processes/server-process.js';

/**
 * A real nginx from Debian's packages in front of one server, on loopback. Every file it writes
 * (pid, logs, temp paths) stays in a temp dir, so it runs as root without touching /var.
 *
 * Three front doors, all proxying to the same upstream with
 * `X-Forwarded-For $proxy_add_x_forwarded_for` (none with `forwardedFor: false`):
 * - `httpUrl`: `Host $host`, `X-Forwarded-Proto $scheme` (plain http), as the README recipe;
 * - `httpsUrl`: the same, but `X-Forwarded-Proto https`, as nginx terminating TLS would send;
 * - `proxyHostUrl`: `Host $proxy_host`, so the server sees its own loopback address as Host.
 */
export interface NginxProxy {
  httpUrl: string;
  httpsUrl: string;
  proxyHostUrl: string;
  dir: string;
  /** What nginx wrote to stderr (its error log). */
  stderr(): string;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /**
   * False: nginx sends no X-Forwarded-For (nor X-Real-IP), as a proxy configured without
   * `proxy_set_header X-Forwarded-For` does; the server then cannot tell whose request it forwards.
   */
  forwardedFor?: boolean;
}

const running = new Set<ChildProcess>();

// Debian puts nginx in /usr/sbin, which is not on every user's PATH.
const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';

/**
 * Where nginx proxies to: one server's port, several (taken in turn, round-robin, as a balancer in front of instances sharing one store),
 * or a server's Unix socket.
 */
export type NginxUpstream = number | readonly number[] | { socket: string };

export async function startNginx(upstream: NginxUpstream, options: NginxOptions = {}): Promise<NginxProxy> {
  const dir = makeNginxDir();
  const [httpPort, httpsPort, proxyHostPort] = [await freePort(), await freePort(), await freePort()];
  const conf = nginxConf(dir, upstream, { httpPort, httpsPort, proxyHostPort }, options.forwardedFor ?? true);
  const nginx = await runNginx(dir, conf, [httpPort, httpsPort, proxyHostPort]);
  return {
    httpUrl: `http://127.0.0.1:${httpPort}`,
    httpsUrl: `http://127.0.0.1:${httpsPort}`,
    proxyHostUrl: `http://127.0.0.1:${proxyHostPort}`,
    dir,
    ...nginx,
  };
}

/** A real nginx serving the `server { ... }` blocks given (a README recipe, say), which listen on `ports`; its temp paths in a temp dir. */
export async function startNginxServers(
  serverBlocks: string,
  ports: readonly number[],
): Promise<{ dir: string; stderr: () => string; stop: () => Promise<void> }> {
  const dir = makeNginxDir();
  return { dir, ...(await runNginx(dir, httpConf(dir, serverBlocks), ports)) };
}

function makeNginxDir(): string {
  const dir = makeTempDir('webui-nginx-');
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  return dir;
}

/** Starts nginx on `confText` and resolves once every port listens. */
async function runNginx(
  dir: string,
  confText: string,
  ports: readonly number[],
): Promise<{ stderr: () => string; stop: () => Promise<void> }> {
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, confText);
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-e', 'stderr', '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('error', (error) => reject(new Error(`nginx could not be started (${error.message}); install nginx-light`)));
    child.once('exit', (code) => reject(new Error(`nginx exited with code ${code} before listening:\n${stderr}`)));
  });
  exited.catch(() => undefined);
  await Promise.race([Promise.all(ports.map((port) => waitForPort(port, 10_000, 'nginx'))), exited]);
  return { stderr: () => stderr, stop: () => stopDaemon(child) };
}

/** Stops every nginx still running; call it from afterAll. */
export async function stopAllNginx(): Promise<void> {
  await Promise.all([...running].map((child) => stopDaemon(child)));
}

function nginxConf(
  dir: string,
  upstream: NginxUpstream,
  ports: { httpPort: number; httpsPort: number; proxyHostPort: number },
  forwardedFor: boolean,
): string {
  const socket = typeof upstream === 'object' && 'socket' in upstream ? upstream.socket : undefined;
  const upstreamPorts = typeof upstream === 'number' ? [upstream] : socket === undefined ? (upstream as readonly number[]) : [];
  // One server is named by its address, so $proxy_host stays 127.0.0.1:port; several form the upstream `webui`; a socket is the README's
  // recipe.
  const target = socket !== undefined ? `unix:${socket}:` : upstreamPorts.length === 1 ? `127.0.0.1:${upstreamPorts[0]}` : 'webui';
  const location = (host: string, proto: string) => `
    location / {
      proxy_pass http://${target};
      proxy_http_version 1.1;
      proxy_set_header Host ${host};
      ${forwardedFor ? 'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;' : '# no X-Forwarded-For: the misconfigured proxy'}
      proxy_set_header X-Forwarded-Proto ${proto};
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_next_upstream off;
    }`;
  return httpConf(
    dir,
    `
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  # Round-robin over every instance; an instance that fails is not retried elsewhere, so each answer is that instance's own.
  ${
    upstreamPorts.length <= 1
      ? ''
      : `upstream webui {\n    ` + `${upstreamPorts.map((port) => `server 127.0.0.1:${port} max_fails=0;`).join('\n    ')}\n  }`
  }
  server {
    listen 127.0.0.1:${ports.httpPort};
    ${location('$host', '$scheme')}
  }
  server {
    listen 127.0.0.1:${ports.httpsPort};
    ${location('$host', 'https')}
  }
  server {
    listen 127.0.0.1:${ports.proxyHostPort};
    ${location('$proxy_host', '$scheme')}
  }`,
  );
}

/** The whole nginx.conf around the http block's contents: one foreground process, every path it writes in `dir`. */
function httpConf(dir: string, http: string): string {
  return `
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
${http}
}
`;
}
