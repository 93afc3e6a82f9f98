import type { TokenRecord } from '@webui/core/adapter';
import { FakeClock, overwriteRecord } from '@webui/core/testing';
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nodeFileSystem, type FileSystem } from './file/file-system.js';
import { JsonFileStore } from './json-file-store.js';
import type { StoreEvent } from './store-event.js';

const FIRST: TokenRecord = { accessToken: 'first-token-123', tokenSource: 'configured', firstSetupCompleted: true };
// The poll's period (record/hand-edit-poll.ts), on a fake clock: each test says how many polls it lets run.
const POLL_INTERVAL_MS = 250;
// Several polls, for asserting that nothing happens.
const QUIET_POLLS = 3;

let root: string;
let file: string;
let events: StoreEvent[];
let changes: Array<{ record: TokenRecord | null; previous: TokenRecord | null }>;
let store: JsonFileStore;
/** How often the store looked at the file: once open, only the hand-edit poll calls stat. */
let looks: number;
const countingFs: FileSystem = {
  ...nodeFileSystem,
  stat: (path) => {
    looks++;
    return nodeFileSystem.stat(path);
  },
};

/** Lets `count` polls run to their end; polls run one at a time in the store's queue, so one is over once the next has looked. */
async function polls(count: number): Promise<void> {
  const until = looks + count + 1;
  while (looks < until) {
    vi.advanceTimersByTime(POLL_INTERVAL_MS);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  looks = 0;
  root = mkdtempSync(join(tmpdir(), 'webui-store-edits-'));
  const dataDir = join(root, 'data');
  file = join(dataDir, 'webui.json');
  events = [];
  changes = [];
  store = new JsonFileStore({ dataDir, clock: new FakeClock(), fs: countingFs, onEvent: (event) => events.push(event) });
  await store.open();
  await overwriteRecord(store, FIRST);
  store.onRecordChanged((record, previous) => changes.push({ record, previous }));
  store.watch();
});

afterEach(async () => {
  await store.close();
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

function editByHand(content: string | object): void {
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

describe('hand edits while running', () => {
  it('takes a valid edit at the next poll, well within a second, and tells the listeners', async () => {
    editByHand({ access_token: 'edited-token-456', token_source: 'configured', first_setup_completed: false, note: 'by hand' });
    const edited: TokenRecord = { accessToken: 'edited-token-456', tokenSource: 'configured', firstSetupCompleted: false };
    await polls(1);
    expect(await store.readRecord()).toEqual(edited);
    expect(events).toEqual([{ kind: 'reloaded', path: file }]);
    expect(changes).toEqual([{ record: edited, previous: FIRST }]);
    await overwriteRecord(store, { ...edited, firstSetupCompleted: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ note: 'by hand' });
  });

  it('refuses an invalid edit, keeps the last good record and leaves the file where it is', async () => {
    editByHand('{"access_token": "half-typed');
    await polls(1);
    expect(events).toEqual([{ kind: 'reload-refused', path: file, reason: expect.stringMatching(/not valid JSON.*last good record/) }]);
    expect(await store.readRecord()).toEqual(FIRST);
    expect(readdirSync(join(root, 'data'))).toEqual(['webui.json']);
    expect(readFileSync(file, 'utf8')).toBe('{"access_token": "half-typed');

    // The operator finishes the edit.
    editByHand({ access_token: 'finished-token-789', first_setup_completed: true });
    await polls(1);
    expect((await store.readRecord())?.accessToken).toBe('finished-token-789');
    expect(events.map((event) => event.kind)).toEqual(['reload-refused', 'reloaded']);
  });

  it('refuses an edit of the wrong shape once, not on every poll', async () => {
    editByHand({ access_token: 42, first_setup_completed: true });
    await polls(1);
    expect(events).toHaveLength(1);
    await polls(QUIET_POLLS);
    expect(events).toEqual([{ kind: 'reload-refused', path: file, reason: expect.stringMatching(/wrong shape/) }]);
    expect(await store.readRecord()).toEqual(FIRST);
  });

  it('keeps the record when the file is removed, and the next write recreates it', async () => {
    unlinkSync(file);
    await polls(1);
    expect(events).toEqual([{ kind: 'reload-refused', path: file, reason: expect.stringMatching(/removed/) }]);
    expect(await store.readRecord()).toEqual(FIRST);
    await overwriteRecord(store, { ...FIRST, firstSetupCompleted: false });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ first_setup_completed: false });
  });

  it('does not report its own writes as hand edits', async () => {
    for (let i = 0; i < 5; i++) {
      await overwriteRecord(store, { ...FIRST, accessToken: `own-write-${i}-token` });
      // Some writes follow each other before a poll, some are looked at one by one.
      if (i % 2 === 1) await polls(1);
    }
    await polls(QUIET_POLLS);
    expect(events).toEqual([]);
    expect(changes.map((change) => change.record?.accessToken)).toEqual([
      'own-write-0-token',
      'own-write-1-token',
      'own-write-2-token',
      'own-write-3-token',
      'own-write-4-token',
    ]);
  });

  it('ignores an edit that leaves the bytes as they were', async () => {
    editByHand(readFileSync(file, 'utf8'));
    await polls(QUIET_POLLS);
    expect(events).toEqual([]);
    expect(changes).toEqual([]);
  });

  it('stops watching on close()', async () => {
    await store.close();
    editByHand({ access_token: 'after-close-token', first_setup_completed: true });
    // No poll is left to run, however long the wait: the clock moves on and nothing looks at the file.
    const looksAtClose = looks;
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(QUIET_POLLS * POLL_INTERVAL_MS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(looks).toBe(looksAtClose);
    expect(await store.readRecord()).toEqual(FIRST);
    expect(events).toEqual([]);
  });
});
