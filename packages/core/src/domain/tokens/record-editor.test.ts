import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../memory/memory-store.js';
import type { TokenRecord } from '../../ports/store.js';
import { RecordEditor, requireRecord } from './record-editor.js';
import { FakeClock } from '../../testing/fake-clock.js';

const RECORD: TokenRecord = { accessToken: 'Some-Token-1!', tokenSource: 'configured', firstSetupCompleted: false };

describe('RecordEditor', () => {
  it('read returns the record, and throws a wiring error when there is none', async () => {
    expect(await new RecordEditor(new MemoryStore(new FakeClock(), { record: RECORD })).read()).toEqual(RECORD);
    await expect(new RecordEditor(new MemoryStore(new FakeClock())).read()).rejects.toThrow(/bootstrap\(\) must run first/);
  });

  it('requireRecord passes a record through', () => {
    expect(requireRecord(RECORD)).toBe(RECORD);
    expect(() => requireRecord(null)).toThrow(/missing/);
  });

  it('writes what the change returns, and nothing when it returns null', async () => {
    const store = new MemoryStore(new FakeClock(), { record: RECORD });
    const editor = new RecordEditor(store);
    expect(await editor.edit((current) => ({ next: null, result: current?.accessToken }))).toBe(RECORD.accessToken);
    expect(await store.record.readRecord()).toEqual(RECORD);
    await editor.edit((current) => ({ next: { ...requireRecord(current), firstSetupCompleted: true }, result: undefined }));
    expect((await store.record.readRecord())?.firstSetupCompleted).toBe(true);
  });

  it('runs edits one after another, each on the record the previous one wrote', async () => {
    const store = new MemoryStore(new FakeClock(), { record: { ...RECORD, accessToken: '' } });
    const editor = new RecordEditor(store);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        editor.edit((current) => ({ next: { ...requireRecord(current), accessToken: `${current?.accessToken}${i},` }, result: i })),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((await store.record.readRecord())?.accessToken).toBe(Array.from({ length: 20 }, (_, i) => `${i},`).join(''));
  });

  it('a failing edit rejects its caller and does not block the next edit', async () => {
    const store = new MemoryStore(new FakeClock(), { record: RECORD });
    const editor = new RecordEditor(store);
    const failing = editor.edit(() => {
      throw new Error('boom');
    });
    const next = editor.edit((current) => ({ next: null, result: current?.accessToken }));
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe(RECORD.accessToken);
  });

  it('editors of two processes sharing a store both land: the one that lost the compare-and-set runs again on the winner', async () => {
    const store = new MemoryStore(new FakeClock(), { record: RECORD });
    // Two editors stand for two processes: neither waits for the other's queue.
    const [first, second] = [new RecordEditor(store), new RecordEditor(store)];
    const runs: string[] = [];
    await Promise.all([
      first.edit((current) => {
        runs.push(`token on ${current?.firstSetupCompleted}`);
        return { next: { ...requireRecord(current), accessToken: 'Token-From-First-1!' }, result: undefined };
      }),
      second.edit((current) => {
        runs.push(`setup on ${current?.accessToken}`);
        return { next: { ...requireRecord(current), firstSetupCompleted: true }, result: undefined };
      }),
    ]);
    expect(await store.record.readRecord()).toEqual({ ...RECORD, accessToken: 'Token-From-First-1!', firstSetupCompleted: true });
    expect(runs).toEqual(['token on false', `setup on ${RECORD.accessToken}`, 'setup on Token-From-First-1!']);
  });
});
