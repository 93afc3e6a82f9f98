import type { TokenRecord } from '@webui/core/adapter';
import { FakeClock, overwriteRecord } from '@webui/core/testing';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileSystem, type FileSystem } from './file/file-system.js';
import { JsonFileStore } from './json-file-store.js';
import type { StoreEvent } from './store-event.js';

const RECORD: TokenRecord = { accessToken: 'configured-token-1', tokenSource: 'configured', firstSetupCompleted: true };
const isRoot = process.getuid?.() === 0;

let root: string;
let dataDir: string;
let file: string;
let events: StoreEvent[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'webui-store-json-'));
  dataDir = join(root, 'data');
  file = join(dataDir, 'webui.json');
  events = [];
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function makeStore(fs?: FileSystem): JsonFileStore {
  return new JsonFileStore({ dataDir, clock: new FakeClock(), onEvent: (event) => events.push(event), ...(fs ? { fs } : {}) });
}

async function openStore(fs?: FileSystem): Promise<JsonFileStore> {
  const store = makeStore(fs);
  await store.open();
  return store;
}

function writeFileByHand(content: string | object, mode = 0o600): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode });
}

function readJson(): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

describe('permissions and atomicity', () => {
  it('creates the data directory 0700 and the file 0600', async () => {
    const store = await openStore();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    await overwriteRecord(store, RECORD);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(events).toEqual([]);
  });

  it('warns about a data directory others can enter but leaves its mode alone', async () => {
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    await openStore();
    expect(events).toEqual([{ kind: 'insecure-permissions', path: dataDir, mode: 0o755, fixed: false }]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o755);
  });

  it('narrows a hand-made world-readable file to 0600', async () => {
    writeFileByHand({ access_token: 'hand-made-token', first_setup_completed: false }, 0o644);
    chmodSync(file, 0o644);
    await openStore();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(events).toEqual([{ kind: 'insecure-permissions', path: file, mode: 0o644, fixed: true }]);
  });

  it('writes in the snake_case format and leaves no temp file behind', async () => {
    const store = await openStore();
    await overwriteRecord(store, { ...RECORD, secretKeyFingerprint: 'f'.repeat(64) });
    expect(readJson()).toEqual({
      access_token: 'configured-token-1',
      token_source: 'configured',
      first_setup_completed: true,
      secret_key_fingerprint: 'f'.repeat(64),
    });
    expect(readdirSync(dataDir)).toEqual(['webui.json']);
  });

  it('ends 50 concurrent writes with a valid file equal to one of the written records', async () => {
    const store = await openStore();
    const records: TokenRecord[] = Array.from({ length: 50 }, (_, i) => ({
      accessToken: `token-${i}-${'x'.repeat(i)}`,
      tokenSource: 'configured',
      firstSetupCompleted: i % 2 === 0,
    }));
    await Promise.all(records.map((record) => overwriteRecord(store, record)));
    const onDisk = readJson();
    const written = records.map((r) => ({
      access_token: r.accessToken,
      token_source: r.tokenSource,
      first_setup_completed: r.firstSetupCompleted,
    }));
    expect(written).toContainEqual(onDisk);
    const inMemory = await store.readRecord();
    expect(onDisk).toEqual({
      access_token: inMemory?.accessToken,
      token_source: inMemory?.tokenSource,
      first_setup_completed: inMemory?.firstSetupCompleted,
    });
    expect(readdirSync(dataDir)).toEqual(['webui.json']);
  });

  it('serves readRecord from memory without touching the file system', async () => {
    let calls = 0;
    const fs = nodeFileSystem;
    const counting: FileSystem = {
      open: (...args) => (calls++, fs.open(...args)),
      readFile: (...args) => (calls++, fs.readFile(...args)),
      rename: (...args) => (calls++, fs.rename(...args)),
      stat: (...args) => (calls++, fs.stat(...args)),
      mkdir: (...args) => (calls++, fs.mkdir(...args)),
      chmod: (...args) => (calls++, fs.chmod(...args)),
      unlink: (...args) => (calls++, fs.unlink(...args)),
    };
    writeFileByHand({ access_token: 'counted-token', token_source: 'configured', first_setup_completed: true });
    const store = await openStore(counting);
    expect(calls).toBeGreaterThan(0);
    calls = 0;
    for (let i = 0; i < 10; i++)
      expect(await store.readRecord()).toEqual({ accessToken: 'counted-token', tokenSource: 'configured', firstSetupCompleted: true });
    expect(calls).toBe(0);
  });

  it('refuses to be used before open()', async () => {
    const store = makeStore();
    await expect(store.readRecord()).rejects.toThrow(/call open\(\) before use/);
    await expect(overwriteRecord(store, RECORD)).rejects.toThrow(/call open\(\) before use/);
  });
});

describe('file format', () => {
  it('keeps unknown fields across writes, including ones added by hand just before a write', async () => {
    writeFileByHand({
      access_token: 'old-token-123',
      token_source: 'configured',
      first_setup_completed: true,
      created_at: '2025-01-01',
      nested: { list: [1, 'two'] },
    });
    const store = await openStore();
    await overwriteRecord(store, { accessToken: 'new-token-456', tokenSource: 'configured', firstSetupCompleted: true });
    expect(readJson()).toEqual({
      access_token: 'new-token-456',
      token_source: 'configured',
      first_setup_completed: true,
      created_at: '2025-01-01',
      nested: { list: [1, 'two'] },
    });
    writeFileByHand({ ...(readJson() as object), added_by_hand: true });
    await overwriteRecord(store, { accessToken: 'newer-token-789', tokenSource: 'configured', firstSetupCompleted: false });
    expect(readJson()).toMatchObject({ access_token: 'newer-token-789', created_at: '2025-01-01', added_by_hand: true });
  });

  it('drops a known optional field the new record no longer has', async () => {
    writeFileByHand({ access_token: 'old-token-123', first_setup_completed: true, secret_key_fingerprint: 'abc' });
    const store = await openStore();
    await overwriteRecord(store, { accessToken: 'old-token-123', tokenSource: 'temporary', firstSetupCompleted: true });
    expect(readJson()).toEqual({ access_token: 'old-token-123', token_source: 'temporary', first_setup_completed: true });
  });

  it('passes a legacy file without token_source up with tokenSource undefined', async () => {
    writeFileByHand({ access_token: 'a'.repeat(64), first_setup_completed: false });
    const store = await openStore();
    const record = await store.readRecord();
    expect(record).toEqual({ accessToken: 'a'.repeat(64), firstSetupCompleted: false });
    expect(record && 'tokenSource' in record).toBe(false);
    expect(events).toEqual([]);
  });

  it('reads a file without first_setup_completed (older versions) as setup not completed, without moving it', async () => {
    writeFileByHand({ access_token: 'Legacy-Token-1!' });
    const store = await openStore();
    expect(await store.readRecord()).toEqual({ accessToken: 'Legacy-Token-1!', firstSetupCompleted: false });
    expect(events).toEqual([]);
  });

  it('starts empty when there is no file, without creating one', async () => {
    const store = await openStore();
    expect(await store.readRecord()).toBeNull();
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('corrupt files at startup', () => {
  const movedName = 'webui.json.corrupt-2026-01-01T00-00-00.000Z';

  it.each([
    ['invalid JSON', '{"access_token": "abc", ', /not valid JSON/],
    ['an empty file', '', /empty/],
    ['a JSON array', '[]', /wrong shape/],
    ['a non-string access_token', '{"access_token": 5, "first_setup_completed": true}', /wrong shape.*access_token/],
    ['an empty access_token', '{"access_token": "", "first_setup_completed": true}', /wrong shape.*access_token/],
    [
      'a non-boolean first_setup_completed',
      '{"access_token": "token-abc-123", "first_setup_completed": "yes"}',
      /wrong shape.*first_setup_completed/,
    ],
    [
      'an unknown token_source',
      '{"access_token": "token-abc-123", "token_source": "guessed", "first_setup_completed": true}',
      /wrong shape.*token_source/,
    ],
  ])('moves %s aside byte for byte and starts empty', async (_label, content, reason) => {
    writeFileByHand(content);
    const store = await openStore();
    expect(await store.readRecord()).toBeNull();
    const movedTo = join(dataDir, movedName);
    expect(readFileSync(movedTo, 'utf8')).toBe(content);
    expect(readdirSync(dataDir)).toEqual([movedName]);
    expect(events).toEqual([{ kind: 'corrupt-file-moved', path: file, movedTo, reason: expect.stringMatching(reason) }]);
  });

  it('moves a file that is not UTF-8 aside with its exact bytes', async () => {
    const bytes = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(file, bytes);
    await openStore();
    expect(new Uint8Array(readFileSync(join(dataDir, movedName)))).toEqual(bytes);
  });

  it('never overwrites an earlier corrupt copy of the same moment', async () => {
    writeFileByHand('first corrupt');
    await openStore();
    writeFileByHand('second corrupt');
    await openStore();
    expect(readFileSync(join(dataDir, movedName), 'utf8')).toBe('first corrupt');
    expect(readFileSync(join(dataDir, `${movedName}-1`), 'utf8')).toBe('second corrupt');
  });

  it('lets the first write after a moved-aside file create a fresh one', async () => {
    writeFileByHand('garbage');
    const store = await openStore();
    await overwriteRecord(store, RECORD);
    expect(readJson()).toEqual({ access_token: 'configured-token-1', token_source: 'configured', first_setup_completed: true });
  });
});

describe('startup errors', () => {
  it('stops with an error naming the path when a directory sits where the file should be', async () => {
    mkdirSync(file, { recursive: true });
    await expect(openStore()).rejects.toThrow(file);
    expect(statSync(file).isDirectory()).toBe(true);
    expect(readdirSync(dataDir)).toEqual(['webui.json']);
  });

  it('stops with an error naming the path when the file cannot be read', async () => {
    writeFileByHand({ access_token: 'unreadable-token', first_setup_completed: true });
    // root reads through mode 000, so there the denial comes from the injected file system.
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
    const fs: FileSystem = isRoot ? { ...nodeFileSystem, readFile: async () => Promise.reject(denied) } : nodeFileSystem;
    if (!isRoot) chmodSync(file, 0o000);
    const opening = openStore(fs);
    await expect(opening).rejects.toThrow(file);
    await expect(opening).rejects.toThrow(/permission denied/);
    expect(readdirSync(dataDir)).toEqual(['webui.json']);
  });

  it('stops with an error naming the data directory when it is a file', async () => {
    writeFileSync(dataDir, 'not a directory');
    await expect(openStore()).rejects.toThrow(dataDir);
  });
});
