import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { vi } from 'vitest';

/** Resolves once something accepts connections on 127.0.0.1:`port`; `what` names the daemon in the error. */
export async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const open = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (!open) throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

/** Stops a proxy the tests started: SIGTERM (nginx's fast shutdown, Caddy's graceful one), SIGKILL after 3 s. */
export function stopDaemon(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
