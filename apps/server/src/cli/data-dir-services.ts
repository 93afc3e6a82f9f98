import { RecordEditor, SetupState, TokenService } from '@webui/core';
import { JsonFileStore } from '@webui/store-json';
import type { LoadedSettings } from '../config/loaded-settings.js';
import { cryptoRandom } from '../runtime/crypto-random.js';
import { systemClock } from '../runtime/system-clock.js';
import { secretKeyFingerprint } from '../runtime/secret-key-fingerprint.js';

export interface DataDirServices {
  store: JsonFileStore;
  tokens: TokenService;
  setup: SetupState;
  close(): Promise<void>;
}

/**
 * The core over the data directory, without a server: the CLI writes the file atomically and a
 * running server adopts the change as a hand edit (DESIGN D12). No instance lock is taken for that reason.
 */
export async function openDataDir(loaded: LoadedSettings, options: { createIfMissing: boolean }): Promise<DataDirServices | null> {
  const store = new JsonFileStore({ dataDir: loaded.dataDir, clock: systemClock });
  await store.open();
  const editor = new RecordEditor(store);
  const tokens = new TokenService(store, editor, cryptoRandom);
  if (!(await store.readRecord())) {
    if (!options.createIfMissing) {
      await store.close();
      return null;
    }
    // Only a missing record is bootstrapped: a temporary one must not be renewed by a CLI call.
    await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(loaded.settings.secretKey) });
  }
  return { store, tokens, setup: new SetupState(editor), close: () => store.close() };
}
