import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopDaemon, waitForPort } from '../processes/daemon-process.js';
import { makeTempDir } from '../processes/server-process.js';

/** A real Caddy from Debian's `caddy` package (scripts/bootstrap.mjs --for-tests installs it). */
export interface CaddyProxy {
  dir: string;
  /** What Caddy logged (it logs to stderr). */
  stderr(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/**
 * Runs `caddy run` on a Caddyfile (a README recipe, say) whose sites listen on `ports`, and resolves once they do.
 * The admin endpoint is off and every file Caddy writes (its data and config autosave) stays in a temp dir.
 */
export async function startCaddy(caddyfile: string, ports: readonly number[]): Promise<CaddyProxy> {
  const dir = makeTempDir('webui-caddy-');
  const file = join(dir, 'Caddyfile');
  writeFileSync(file, `{\n\tadmin off\n}\n\n${caddyfile}`);
  const home = { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') };
  const child = spawn('caddy', ['run', '--config', file, '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...home },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('error', (error) => reject(new Error(`caddy could not be started (${error.message}); install Debian's caddy`)));
    child.once('exit', (code) => reject(new Error(`caddy exited with code ${code} before listening:\n${stderr}`)));
  });
  exited.catch(() => undefined);
  await Promise.race([Promise.all(ports.map((port) => waitForPort(port, 10_000, 'caddy'))), exited]);
  return { dir, stderr: () => stderr, stop: () => stopDaemon(child) };
}

/** Stops every Caddy still running; call it from afterAll, before the temp dirs go. */
export async function stopAllCaddy(): Promise<void> {
  await Promise.all([...running].map((child) => stopDaemon(child)));
}
