import { secretKeyFingerprint, type LoadedSettings } from '@webui/assembly';
import type { Core, SetupState, TokenService } from '@webui/core';
import type { JsonFileStore } from '@webui/store-json';
import { createContainer, TOKENS } from '../container.js';

export interface DataDirServices {
  store: JsonFileStore;
  tokens: TokenService;
  setup: SetupState;
  close(): Promise<void>;
}

/**
 * The core over the data directory, resolved from the server's container, without a server: the CLI
 * writes the file atomically and a running server adopts the change as a hand edit within a second (DESIGN D12). No
 * instance lock is taken for that reason, and the store's notices go to stderr, never into stdout.
 */
export async function openDataDir(loaded: LoadedSettings, options: { createIfMissing: boolean }): Promise<DataDirServices | null> {
  const container = createContainer(loaded);
  container.register(TOKENS.LogDestination, { useValue: process.stderr });
  const store = container.resolve<JsonFileStore>(TOKENS.Store);
  await store.open();
  const { tokens, setup } = container.resolve<Core>(TOKENS.Core);
  if (!(await store.readRecord())) {
    if (!options.createIfMissing) {
      await store.close();
      return null;
    }
    // Only a missing record is bootstrapped: a temporary one must not be renewed by a CLI call.
    await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(loaded.settings.secretKey) });
  }
  return { store, tokens, setup, close: () => store.close() };
}
