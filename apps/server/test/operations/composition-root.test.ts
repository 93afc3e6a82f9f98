import 'reflect-metadata';
import { loadSettings, memoryStorage, type StorageFactory } from '@webui/assembly';
import { FakeClock, SeededRandom } from '@webui/core/testing';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createContainer, nodeParts, TOKENS } from '@webui/assembly/node';
import { serve, type RunningServer } from '@webui/assembly/node';
import { HttpClient } from '../harness/clients/http-client.js';

/** The Node server in-process, built from a child of its tsyringe container with ports swapped, on a real port. */

class Discard extends Writable {
  override _write(_chunk: unknown, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serveWith(
  swap: (container: ReturnType<typeof createContainer>, dataDir: string) => void,
): Promise<{ running: RunningServer; client: HttpClient; dataDir: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'webui-root-'));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  const dataDir = join(cwd, 'data');
  const loaded = loadSettings({ argv: ['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], env: {}, cwd });
  const container = createContainer(loaded).createChildContainer();
  container.register(TOKENS.LogDestination, { useValue: new Discard() });
  swap(container, dataDir);
  const running = await serve(nodeParts(container), { banner: new Discard() });
  cleanups.push(() => running.close());
  return { running, client: new HttpClient(`http://127.0.0.1:${running.listeners[0]!.port}`), dataDir };
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

describe('the Node composition root: a child container swaps a port and the whole server follows', () => {
  it('a FakeClock: a ban lasts exactly 600 s of that clock, over HTTP', async () => {
    const clock = new FakeClock();
    const { client, dataDir } = await serveWith((c) => c.register(TOKENS.Clock, { useValue: clock }));
    const token = (JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')) as { access_token: string }).access_token;
    for (let i = 0; i < 5; i++) await client.post('/auth/verify', { body: { token: `wrong-${i}` } });

    clock.advanceSeconds(599);
    const still = await client.post('/auth/verify', { body: { token } });
    expect(still.status).toBe(429);
    expect(still.json?.['retry_after']).toBe(1);

    clock.advanceSeconds(1);
    expect((await client.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  });

  it("a SeededRandom: the temporary token is the seed's first 32 bytes", async () => {
    const { client } = await serveWith((c) => c.register(TOKENS.Random, { useValue: new SeededRandom(42) }));
    const expected = hex(new SeededRandom(42).bytes(32));
    expect((await client.post('/auth/verify', { body: { token: expected } })).json).toMatchObject({ valid: true });
  });

  it('a memory Storage: the server runs and writes nothing into the data directory', async () => {
    const { client, dataDir } = await serveWith((c) => {
      c.register(TOKENS.Storage, {
        useValue: (({ clock }) => memoryStorage(clock, pino({ enabled: false }))) satisfies StorageFactory,
      });
      c.register(TOKENS.Random, { useValue: new SeededRandom(7) });
    });
    const token = hex(new SeededRandom(7).bytes(32));
    expect((await client.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
  });
});
