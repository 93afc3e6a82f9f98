// The benchmark's own redis-server (Debian's package): a free port, a temp directory, nothing written to disk.
import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort, makeTempDir, removeTempDir, sleep, spawnLogged, stopChild, tail } from '../children.mjs';

const REDIS_SERVER = '/usr/bin/redis-server';
const START_TIMEOUT_MS = 10_000;

/** Why the Redis runs cannot happen here, or null when redis-server is installed. */
export function redisServerMissing() {
  try {
    accessSync(REDIS_SERVER, constants.X_OK);
    return null;
  } catch {
    return `${REDIS_SERVER} is not installed: \`node scripts/bootstrap.mjs --for-tests\` installs it (Debian package redis-server)`;
  }
}

/**
 * Starts redis-server on 127.0.0.1 and waits until it answers PING.
 * No snapshot and no append-only file: the bench measures the request path, not Redis's disk.
 * @returns {Promise<{ child: import('../children.mjs').Child, port: number, url: string, stop: () => Promise<void> }>}
 */
export async function startRedisServer({ prefix = [] } = {}) {
  const home = makeTempDir('redis');
  const port = await freePort();
  const logFile = join(home, 'redis.log');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    home,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  const child = spawnLogged([...prefix, REDIS_SERVER, ...args], { cwd: home, port, logFile });
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (child.exited()) throw new Error(`redis-server exited at start; its output:\n${tail(logFile)}`);
    if (performance.now() > deadline)
      throw new Error(`redis-server did not answer PING within ${START_TIMEOUT_MS} ms; its output:\n${tail(logFile)}`);
    await sleep(20);
  }
  return {
    child,
    port,
    url: `redis://127.0.0.1:${port}/0`,
    async stop() {
      await stopChild(child);
      removeTempDir(home);
    },
  };
}

/** PONG over a plain socket; a server still loading answers an error instead. */
function answersPing(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('+PONG')) done(true);
      else if (reply.includes('\r\n')) done(false);
    });
  });
}
