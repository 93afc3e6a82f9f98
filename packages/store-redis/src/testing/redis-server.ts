import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.js';

/** A redis-server of the tests' own, on a port and in a directory of its own. */
export interface RedisServerHandle {
  /** redis://[:password@]127.0.0.1:<port>/0 */
  url: string;
  port: number;
  /** Its working directory: the append-only file lives there. */
  dir: string;
  /** SIGTERM, waits for the exit, removes the directory. */
  stop(): Promise<void>;
  /** SIGKILL, waits for the exit, keeps the directory (the append-only file survives). */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory and waits until it answers. */
  restart(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/**
 * Starts Debian's redis-server on a free port of 127.0.0.1 with a temporary directory, every write
 * fsynced to the append-only file (so a SIGKILL keeps the data), and waits until it answers PING.
 */
export async function startRedisServer(options: { password?: string } = {}): Promise<RedisServerHandle> {
  const binary = findOnPath('redis-server');
  if (binary === null)
    throw new Error('redis-server is not installed: `node scripts/bootstrap.mjs --for-tests` installs it (Debian package redis-server)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'webui-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;

  let child = await launch(binary, args, port, options.password);
  const stopWith = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      await exited;
    }
  };
  return {
    url: `redis://${auth}127.0.0.1:${port}/0`,
    port,
    dir,
    async stop() {
      await stopWith('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    kill: () => stopWith('SIGKILL'),
    async restart() {
      await stopWith('SIGTERM');
      child = await launch(binary, args, port, options.password);
    },
  };
}

async function launch(binary: string, args: readonly string[], port: number, password: string | undefined): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => {
    // Only the start's output matters for an error message; a long-running server's log is dropped.
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const failed = await Promise.race([spawnError, delay(50).then(() => null)]);
    if (failed) throw new Error(`redis-server could not be started: ${failed.message}`);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited at start (${child.exitCode ?? child.signalCode}):\n${output}`);
    if (await answersPing(port, password)) return child;
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms:\n${output}`);
}

/** Whether the server on `port` answers PING with PONG (not LOADING, not NOAUTH), over a plain socket. */
function answersPing(port: number, password: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => {
      const auth = password === undefined ? '' : `*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`;
      socket.write(`${auth}*1\r\n$4\r\nPING\r\n`);
    });
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('+PONG')) done(true);
      else if (/(^|\n)-/.test(reply)) done(false);
    });
  });
}

function findOnPath(command: string): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
