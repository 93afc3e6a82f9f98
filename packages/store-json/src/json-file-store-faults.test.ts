import type { TokenRecord } from '@webui/core/adapter';
import { FakeClock, overwriteRecord } from '@webui/core/testing';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileSystem, type FileSystem, type WritableFile } from './file/file-system.js';
import { JsonFileStore } from './json-file-store.js';

const OLD: TokenRecord = { accessToken: 'old-token-123', tokenSource: 'configured', firstSetupCompleted: true };
const NEW: TokenRecord = { accessToken: 'new-token-456', tokenSource: 'configured', firstSetupCompleted: true };
const OLD_RECORD = { access_token: 'old-token-123', token_source: 'configured', first_setup_completed: true, kept: 1 };
const OLD_CONTENT = `${JSON.stringify(OLD_RECORD)}\n`;

let root: string;
let dataDir: string;
let file: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'webui-store-faults-'));
  dataDir = join(root, 'data');
  file = join(dataDir, 'webui.json');
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(file, OLD_CONTENT, { mode: 0o600 });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function failure(code: string): Error {
  return Object.assign(new Error(`${code}: simulated failure`), { code });
}

const isTempFile = (path: string): boolean => path.includes('.tmp-');

/** Opens temp files for real, so cleanup is exercised, but fails one of their operations. */
function tempFileFailing(step: keyof WritableFile, code: string): FileSystem {
  return {
    ...nodeFileSystem,
    open: async (path, flags, mode) => {
      const real = await nodeFileSystem.open(path, flags, mode);
      if (!isTempFile(path)) return real;
      return {
        writeFile: async (data) => {
          // A full disk fails part-way: some bytes land in the temp file first.
          await real.writeFile(data.slice(0, 5));
          if (step === 'writeFile') throw failure(code);
          await real.writeFile(data.slice(5));
        },
        sync: async () => (step === 'sync' ? Promise.reject(failure(code)) : real.sync()),
        close: () => real.close(),
      };
    },
  };
}

const faults: Array<[string, FileSystem]> = [
  ['the disk is full while writing (ENOSPC)', tempFileFailing('writeFile', 'ENOSPC')],
  ['fsync of the temp file fails (EIO)', tempFileFailing('sync', 'EIO')],
  [
    'the file system is read-only (EROFS on open)',
    {
      ...nodeFileSystem,
      open: async (path, flags, mode) => (isTempFile(path) ? Promise.reject(failure('EROFS')) : nodeFileSystem.open(path, flags, mode)),
    },
  ],
  ['the rename is refused (EACCES)', { ...nodeFileSystem, rename: async () => Promise.reject(failure('EACCES')) }],
];

describe('a failing write', () => {
  it.each(faults)('rejects when %s, keeping the old record and file and no temp file', async (_label, fs) => {
    const store = new JsonFileStore({ dataDir, clock: new FakeClock(), fs });
    await store.open();
    const changes: unknown[] = [];
    store.onRecordChanged((record) => changes.push(record));
    await expect(overwriteRecord(store, NEW)).rejects.toThrow(/simulated failure/);
    expect(await store.readRecord()).toEqual(OLD);
    expect(readFileSync(file, 'utf8')).toBe(OLD_CONTENT);
    expect(readdirSync(dataDir)).toEqual(['webui.json']);
    expect(changes).toEqual([]);
  });

  it('does not block the writes queued after it', async () => {
    let failNext = true;
    const fs: FileSystem = {
      ...nodeFileSystem,
      rename: async (from, to) => {
        if (failNext) {
          failNext = false;
          throw failure('EIO');
        }
        return nodeFileSystem.rename(from, to);
      },
    };
    const store = new JsonFileStore({ dataDir, clock: new FakeClock(), fs });
    await store.open();
    const [first, second] = await Promise.allSettled([
      overwriteRecord(store, { ...NEW, accessToken: 'lost-token-1' }),
      overwriteRecord(store, NEW),
    ]);
    expect(first.status).toBe('rejected');
    expect(second.status).toBe('fulfilled');
    expect(await store.readRecord()).toEqual(NEW);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      access_token: 'new-token-456',
      token_source: 'configured',
      first_setup_completed: true,
      kept: 1,
    });
  });

  it('rejects when the directory fsync fails, with memory following the file that was already renamed', async () => {
    const fs: FileSystem = {
      ...nodeFileSystem,
      open: async (path, flags, mode) => {
        const real = await nodeFileSystem.open(path, flags, mode);
        if (path !== dirname(file)) return real;
        return { writeFile: (data) => real.writeFile(data), sync: async () => Promise.reject(failure('EIO')), close: () => real.close() };
      },
    };
    const store = new JsonFileStore({ dataDir, clock: new FakeClock(), fs });
    await store.open();
    await expect(overwriteRecord(store, NEW)).rejects.toThrow(/EIO/);
    expect(await store.readRecord()).toEqual(NEW);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ access_token: 'new-token-456' });
  });
});
