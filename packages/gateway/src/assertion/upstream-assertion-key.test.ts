import { SeededRandom } from '@webui/core/testing';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayStartupError } from '../gateway-startup-error.js';
import { ASSERTION_KEY_FILE, loadAssertionKey } from './upstream-assertion-key.js';

const created: string[] = [];
const random = new SeededRandom(3);
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webui-assertion-key-'));
  created.push(dir);
  return dir;
}

async function startupErrorOf(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GatewayStartupError);
  return (error as GatewayStartupError).message;
}

describe('loadAssertionKey', () => {
  it('makes a 32-byte key file with mode 0600 once and reads the same secret after', async () => {
    const dir = dataDir();
    const path = join(dir, ASSERTION_KEY_FILE);
    const made = await loadAssertionKey(dir, new SeededRandom(1));
    expect(made).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(new Uint8Array(readFileSync(path))).toEqual(made);
    // Another random source would make another secret: the file's is kept.
    expect(await loadAssertionKey(dir, new SeededRandom(2))).toEqual(made);
  });

  it('refuses a key file that others may read, naming it', async () => {
    const dir = dataDir();
    const path = join(dir, ASSERTION_KEY_FILE);
    await loadAssertionKey(dir, random);
    chmodSync(path, 0o644);
    expect(await startupErrorOf(loadAssertionKey(dir, random))).toBe(
      `${path} has mode 0644: it holds the upstream assertion secret, so only its owner may read it (chmod 600 ${path})`,
    );
    chmodSync(path, 0o640);
    expect(await startupErrorOf(loadAssertionKey(dir, random))).toMatch(/has mode 0640/);
    chmodSync(path, 0o400);
    expect(await loadAssertionKey(dir, random)).toHaveLength(32);
  });

  it.each([0, 31, 33, 64])('refuses a key file of %i bytes, naming it, and leaves it as it is', async (size) => {
    const dir = dataDir();
    const path = join(dir, ASSERTION_KEY_FILE);
    writeFileSync(path, new Uint8Array(size).fill(1), { mode: 0o600 });
    expect(await startupErrorOf(loadAssertionKey(dir, random))).toBe(
      `${path} holds ${size} bytes, not the 32 of an upstream assertion key; ` +
        'remove it and a new one is made (an upstream that verifies the assertion then needs the new one)',
    );
    expect(readFileSync(path)).toHaveLength(size);
  });

  it('refuses a directory in the place of the key file, and a data directory that does not exist', async () => {
    const dir = dataDir();
    mkdirSync(join(dir, ASSERTION_KEY_FILE), { mode: 0o700 });
    expect(await startupErrorOf(loadAssertionKey(dir, random))).toMatch(/upstream-assertion\.key/);
    expect(await startupErrorOf(loadAssertionKey(join(dir, 'missing'), random))).toMatch(
      /^cannot make .*missing\/upstream-assertion\.key: ENOENT$/,
    );
  });
});
