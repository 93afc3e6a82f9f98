import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { vi } from 'vitest';

const START_TIMEOUT_MS = 10_000;

/** Debian's redis-server on PATH, or an error saying how to install it. */
export function redisServerBinary(): string {
  const binary = findOnPath('redis-server');
  if (binary === null)
    throw new Error('redis-server is not installed: `node scripts/bootstrap.mjs --for-tests` installs it (Debian package redis-server)');
  return binary;
}

/** Starts redis-server with `args` and waits until it answers PING on `port`; kills it and throws with its output when it does not. */
export async function launchRedis(
  binary: string,
  args: readonly string[],
  port: number,
  password: string | undefined,
): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => {
    // Only the start's output matters for an error message; a long-running server's log is dropped.
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const spawned: { error?: Error } = {};
  child.once('error', (error) => (spawned.error = error));
  // A start that failed ends the wait at once; only "no PONG yet" is waited out.
  let failure: Error | undefined;
  try {
    await vi.waitFor(
      async () => {
        if (spawned.error) failure = new Error(`redis-server could not be started: ${spawned.error.message}`);
        else if (child.exitCode !== null || child.signalCode !== null)
          failure = new Error(`redis-server exited at start (${child.exitCode ?? child.signalCode}):\n${output}`);
        else if (!(await answersPing(port, password))) throw new Error('no PONG yet');
      },
      { timeout: START_TIMEOUT_MS, interval: 50 },
    );
  } catch {
    child.kill('SIGKILL');
    throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms:\n${output}`);
  }
  if (failure) throw failure;
  return child;
}

/** Sends `signal` and waits for the exit; nothing when it has exited already. A stopped (SIGSTOP) process is continued first. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT');
  child.kill(signal);
  await exited;
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
