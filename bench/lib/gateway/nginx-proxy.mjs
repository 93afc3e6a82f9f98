// nginx-light from Debian as a plain reverse proxy in front of the bench's upstream, for comparison with the
// gateway: one worker, no access log, HTTP/1.1 with a keep-alive pool to the upstream, every path it writes in a temp dir.
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, makeTempDir, removeTempDir, spawnLogged, stopChild, waitHealthy } from '../children.mjs';

const NGINX = '/usr/sbin/nginx';

/** Why nginx cannot run here, or null when it is installed. */
export function nginxMissing() {
  try {
    accessSync(NGINX, constants.X_OK);
    return null;
  } catch {
    return `${NGINX} is not installed: \`node scripts/bootstrap.mjs --for-tests\` installs it (Debian package nginx-light)`;
  }
}

/**
 * Starts nginx on a free port proxying everything to 127.0.0.1:`upstreamPort`, and waits until `healthPath` answers 200
 * through it. `prefix` is the command it runs under (taskset); with `master_process off` the pid is the one worker's.
 * @returns {Promise<{ child: import('../children.mjs').Child, port: number, stop: () => Promise<void> }>}
 */
export async function startNginxProxy({ upstreamPort, healthPath, prefix = [], headers }) {
  const home = makeTempDir('nginx');
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(home, temp));
  const port = await freePort();
  const conf = join(home, 'nginx.conf');
  writeFileSync(conf, nginxConf(home, port, upstreamPort, headers));
  const startedAt = performance.now();
  const child = spawnLogged([...prefix, NGINX, '-p', home, '-c', conf, '-e', 'stderr', '-g', 'daemon off;'], {
    cwd: home,
    port,
    logFile: join(home, 'output.log'),
  });
  await waitHealthy(child, healthPath, startedAt);
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
 * `headers`, when given, replace the plain reverse proxy's (the client's Host and the X-Forwarded-* trio): each sent as
 * given, `Connection` included, every other client header passed as nginx passes it.
 * @param {Record<string, string>} [headers]
 */
function nginxConf(home, port, upstreamPort, headers) {
  const set =
    headers === undefined
      ? [
          'proxy_set_header Connection "";',
          'proxy_set_header Host $host;',
          'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
          'proxy_set_header X-Forwarded-Proto $scheme;',
          'proxy_set_header X-Forwarded-Host $host;',
        ]
      : Object.entries(headers).map(([name, value]) => `proxy_set_header ${name} ${JSON.stringify(value)};`);
  return `
master_process off;
worker_processes 1;
pid ${join(home, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(home, 'client_body')};
  proxy_temp_path ${join(home, 'proxy')};
  fastcgi_temp_path ${join(home, 'fastcgi')};
  uwsgi_temp_path ${join(home, 'uwsgi')};
  scgi_temp_path ${join(home, 'scgi')};
  # Idle connections to the upstream kept for reuse, as the gateway's undici pool does.
  upstream bot {
    server 127.0.0.1:${upstreamPort};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bot;
      proxy_http_version 1.1;
      ${set.join('\n      ')}
    }
  }
}
`;
}
