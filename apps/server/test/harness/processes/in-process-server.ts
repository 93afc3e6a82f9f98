import 'reflect-metadata';
import { loadSettings, memoryStorage, type StorageFactory } from '@webui/assembly';
import { FakeClock, SeededRandom } from '@webui/core/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { createContainer, nodeParts, TOKENS } from '@webui/assembly/node';
import { serve, type RunningServer } from '@webui/assembly/node';

/** Swallows the log and the banner. */
export class Discard extends Writable {
  override _write(_chunk: unknown, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }
}

export const hex = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

export interface InProcessServer {
  running: RunningServer;
  port: number;
  /** The temporary token the seeded random made. */
  token: string;
  clock: FakeClock;
  close(): Promise<void>;
}

/**
 * The Node server in-process on 127.0.0.1 and a free port, over memory storage, a FakeClock and a
 * SeededRandom: two of them started alike hold the same token and answer alike. `config`: a webui.toml's text.
 */
export async function startInProcessServer(
  seed = 7,
  configure: (container: DependencyContainer) => void = () => undefined,
  options: { config?: string } = {},
): Promise<InProcessServer> {
  const cwd = mkdtempSync(join(tmpdir(), 'webui-in-process-'));
  const argv = ['--port', '0', '--host', '127.0.0.1', '--data-dir', join(cwd, 'data')];
  if (options.config !== undefined) {
    writeFileSync(join(cwd, 'webui.toml'), options.config);
    argv.push('--config', join(cwd, 'webui.toml'));
  }
  const loaded = loadSettings({ argv, env: {}, cwd });
  const clock = new FakeClock();
  const container = createContainer(loaded).createChildContainer();
  container.register(TOKENS.LogDestination, { useValue: new Discard() });
  container.register(TOKENS.Clock, { useValue: clock });
  container.register(TOKENS.Random, { useValue: new SeededRandom(seed) });
  container.register(TOKENS.Storage, {
    useValue: (({ clock }) => memoryStorage(clock, pino({ enabled: false }))) satisfies StorageFactory,
  });
  configure(container);
  const running = await serve(nodeParts(container), { banner: new Discard() });
  return {
    running,
    port: running.listeners[0]!.port,
    token: hex(new SeededRandom(seed).bytes(32)),
    clock,
    async close() {
      await running.close();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** What a client acts on in a raw answer: status, body, and the headers that matter (every Set-Cookie line). */
export function seenAnswer(answer: string): object {
  const split = answer.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = answer.slice(0, split).split('\r\n');
  const values = (name: string) =>
    lines.filter((line) => line.toLowerCase().startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).trim());
  return {
    status: statusLine.split(' ')[1],
    body: answer.slice(split + 4),
    type: values('content-type')[0] ?? null,
    cache: values('cache-control')[0] ?? null,
    retry: values('retry-after')[0] ?? null,
    cookies: values('set-cookie'),
  };
}
