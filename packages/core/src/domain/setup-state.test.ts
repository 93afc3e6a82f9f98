import { describe, expect, it, vi } from 'vitest';
import { MemoryRecord } from '../memory/memory-record.js';
import type { RecordSwap, TokenRecord } from '../ports/store.js';
import { RecordEditor } from './tokens/record-editor.js';
import { SetupState } from './setup-state.js';
import { createCoreHarness } from '../testing/core-harness.js';
import { SeededRandom } from '../testing/seeded-random.js';
import { TokenService } from './tokens/token-service.js';

const STRONG = 'Strong-Token-2026!';

async function bootedHarness() {
  const harness = createCoreHarness();
  const outcome = await harness.tokens.bootstrap();
  return { ...harness, token: outcome.temporaryToken as string };
}

/** A record whose reads and writes each yield a turn of the event loop, so unserialised edits would interleave. */
class SlowRecord extends MemoryRecord {
  override async readRecord(): Promise<TokenRecord | null> {
    const record = await super.readRecord();
    await new Promise((resolve) => setImmediate(resolve));
    return record;
  }

  override async swapRecord(expected: TokenRecord | null, record: TokenRecord): Promise<RecordSwap> {
    await new Promise((resolve) => setImmediate(resolve));
    return super.swapRecord(expected, record);
  }
}

describe('SetupState (First setup table)', () => {
  it('is_first_setup is true after the first startup', async () => {
    const { setup } = await bootedHarness();
    expect(await setup.isFirstSetup()).toBe(true);
  });

  it('true -> complete -> false: returns the new is_first_setup and writes first_setup_completed', async () => {
    const { setup, store } = await bootedHarness();
    expect(await setup.complete()).toBe(false);
    expect(await setup.isFirstSetup()).toBe(false);
    expect((await store.record.readRecord())?.firstSetupCompleted).toBe(true);
  });

  it('false -> reset -> true: the wizard may be entered again', async () => {
    const { setup, store } = await bootedHarness();
    await setup.complete();
    expect(await setup.reset()).toBe(true);
    expect(await setup.isFirstSetup()).toBe(true);
    expect((await store.record.readRecord())?.firstSetupCompleted).toBe(false);
  });

  it('complete and reset are idempotent and write nothing when nothing changes', async () => {
    const { setup, store } = await bootedHarness();
    const write = vi.spyOn(store.record, 'swapRecord');
    expect(await setup.reset()).toBe(true);
    expect(write).not.toHaveBeenCalled();
    expect(await setup.complete()).toBe(false);
    expect(await setup.complete()).toBe(false);
    expect(write).toHaveBeenCalledTimes(1);
    expect(await setup.isFirstSetup()).toBe(false);
  });

  it('is kept across a temporary-token renewal at startup and across token rotations', async () => {
    const { setup, tokens } = await bootedHarness();
    await setup.complete();
    await tokens.bootstrap();
    await tokens.update(STRONG);
    await tokens.regenerate();
    expect(await setup.isFirstSetup()).toBe(false);
  });

  it('needs a record: bootstrap() must run first', async () => {
    const { setup } = createCoreHarness();
    await expect(setup.isFirstSetup()).rejects.toThrow(/bootstrap\(\) must run first/);
    await expect(setup.complete()).rejects.toThrow(/bootstrap\(\) must run first/);
  });

  it('concurrent complete and token update both land (RecordEditor serialises them)', async () => {
    const store = { record: new SlowRecord() };
    const editor = new RecordEditor(store);
    const tokens = new TokenService(store, editor, new SeededRandom(3));
    const setup = new SetupState(editor);
    await tokens.bootstrap();

    const [isFirstSetup, updated] = await Promise.all([setup.complete(), tokens.update(STRONG)]);

    expect(isFirstSetup).toBe(false);
    expect(updated.ok).toBe(true);
    expect(await store.record.readRecord()).toEqual({ accessToken: STRONG, tokenSource: 'configured', firstSetupCompleted: true });
  });

  it('concurrent update then complete, in the other order, also keep both writes', async () => {
    const store = { record: new SlowRecord() };
    const editor = new RecordEditor(store);
    const tokens = new TokenService(store, editor, new SeededRandom(3));
    const setup = new SetupState(editor);
    await tokens.bootstrap();

    const [rotated] = await Promise.all([tokens.regenerate(), setup.complete(), setup.reset(), setup.complete()]);

    expect(await store.record.readRecord()).toEqual({ accessToken: rotated.token, tokenSource: 'configured', firstSetupCompleted: true });
  });
});
