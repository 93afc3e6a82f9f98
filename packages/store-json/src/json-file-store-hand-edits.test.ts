import type { TokenRecord } from '@webui/core';
import { FakeClock, overwriteRecord } from '@webui/core/testing';
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonFileStore } from './json-file-store.js';
import type { StoreEvent } from './store-event.js';

const FIRST: TokenRecord = { accessToken: 'first-token-123', tokenSource: 'configured', firstSetupCompleted: true };
// Longer than several poll intervals, for asserting that nothing happens.
const QUIET_PERIOD_MS = 800;

let root: string;
let file: string;
let events: StoreEvent[];
let changes: Array<{ record: TokenRecord | null; previous: TokenRecord | null }>;
let store: JsonFileStore;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'webui-store-edits-'));
  const dataDir = join(root, 'data');
  file = join(dataDir, 'webui.json');
  events = [];
  changes = [];
  store = new JsonFileStore({ dataDir, clock: new FakeClock(), onEvent: (event) => events.push(event) });
  await store.open();
  await overwriteRecord(store, FIRST);
  store.onRecordChanged((record, previous) => changes.push({ record, previous }));
  store.watch();
});

afterEach(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

function editByHand(content: string | object): void {
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

describe('hand edits while running', () => {
  it('takes a valid edit within a second and tells the listeners', async () => {
    editByHand({ access_token: 'edited-token-456', token_source: 'configured', first_setup_completed: false, note: 'by hand' });
    const edited: TokenRecord = { accessToken: 'edited-token-456', tokenSource: 'configured', firstSetupCompleted: false };
    await vi.waitFor(async () => expect(await store.readRecord()).toEqual(edited), { timeout: 2000, interval: 50 });
    expect(events).toEqual([{ kind: 'reloaded', path: file }]);
    expect(changes).toEqual([{ record: edited, previous: FIRST }]);
    await overwriteRecord(store, { ...edited, firstSetupCompleted: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ note: 'by hand' });
  });

  it('refuses an invalid edit, keeps the last good record and leaves the file where it is', async () => {
    editByHand('{"access_token": "half-typed');
    await vi.waitFor(() => expect(events).toEqual([{ kind: 'reload-refused', path: file, reason: expect.stringMatching(/not valid JSON.*last good record/) }]), { timeout: 2000, interval: 50 });
    expect(await store.readRecord()).toEqual(FIRST);
    expect(readdirSync(join(root, 'data'))).toEqual(['webui.json']);
    expect(readFileSync(file, 'utf8')).toBe('{"access_token": "half-typed');

    // The operator finishes the edit.
    editByHand({ access_token: 'finished-token-789', first_setup_completed: true });
    await vi.waitFor(async () => expect((await store.readRecord())?.accessToken).toBe('finished-token-789'), { timeout: 2000, interval: 50 });
    expect(events.map((event) => event.kind)).toEqual(['reload-refused', 'reloaded']);
  });

  it('refuses an edit of the wrong shape once, not on every poll', async () => {
    editByHand({ access_token: 42, first_setup_completed: true });
    await vi.waitFor(() => expect(events).toHaveLength(1), { timeout: 2000, interval: 50 });
    await sleep(QUIET_PERIOD_MS);
    expect(events).toEqual([{ kind: 'reload-refused', path: file, reason: expect.stringMatching(/wrong shape/) }]);
    expect(await store.readRecord()).toEqual(FIRST);
  });

  it('keeps the record when the file is removed, and the next write recreates it', async () => {
    unlinkSync(file);
    await vi.waitFor(() => expect(events).toEqual([{ kind: 'reload-refused', path: file, reason: expect.stringMatching(/removed/) }]), { timeout: 2000, interval: 50 });
    expect(await store.readRecord()).toEqual(FIRST);
    await overwriteRecord(store, { ...FIRST, firstSetupCompleted: false });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ first_setup_completed: false });
  });

  it('does not report its own writes as hand edits', async () => {
    for (let i = 0; i < 5; i++) {
      await overwriteRecord(store, { ...FIRST, accessToken: `own-write-${i}-token` });
      await sleep(100);
    }
    await sleep(QUIET_PERIOD_MS);
    expect(events).toEqual([]);
    expect(changes.map((change) => change.record?.accessToken)).toEqual(['own-write-0-token', 'own-write-1-token', 'own-write-2-token', 'own-write-3-token', 'own-write-4-token']);
  });

  it('ignores an edit that leaves the bytes as they were', async () => {
    editByHand(readFileSync(file, 'utf8'));
    await sleep(QUIET_PERIOD_MS);
    expect(events).toEqual([]);
    expect(changes).toEqual([]);
  });

  it('stops watching on close()', async () => {
    await store.close();
    editByHand({ access_token: 'after-close-token', first_setup_completed: true });
    await sleep(QUIET_PERIOD_MS);
    expect(await store.readRecord()).toEqual(FIRST);
    expect(events).toEqual([]);
  });
});
