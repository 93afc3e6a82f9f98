import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { launchRedis, redisServerBinary, stopProcess } from './redis-process.js';

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
  /** SIGSTOP: it keeps its connections and answers nothing, like a hung server, until thaw(). */
  freeze(): void;
  /** SIGCONT: it runs again, and first what it was sent meanwhile. */
  thaw(): void;
}

/**
 * Starts Debian's redis-server on a free port of 127.0.0.1 with a temporary directory, every write
 * fsynced to the append-only file (so a SIGKILL keeps the data), and waits until it answers PING. `config`: more settings
 * (`{ maxmemory: "2mb" }` gives `--maxmemory 2mb`).
 */
export async function startRedisServer(options: { password?: string; config?: Record<string, string> } = {}): Promise<RedisServerHandle> {
  const binary = redisServerBinary();
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
  for (const [name, value] of Object.entries(options.config ?? {})) args.push(`--${name}`, value);
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;

  let child = await launchRedis(binary, args, port, options.password);
  const stopWith = (signal: NodeJS.Signals): Promise<void> => stopProcess(child, signal);
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
      child = await launchRedis(binary, args, port, options.password);
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
  };
}
