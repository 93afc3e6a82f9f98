import { secretKeyFingerprint, type LoadedSettings } from '@webui/assembly';
import type { Core, SetupState, TokenService } from '@webui/core';
import type { JsonFileStore } from '@webui/store-json';
import { createContainer, TOKENS } from '../container.js';

export interface DataDirServices {
  store: JsonFileStore;
  core: Core;
  tokens: TokenService;
  setup: SetupState;
  close(): Promise<void>;
}

/**
 * The core over the data directory, resolved from the server's container, for the CLI when no server
 * runs (a running one is asked through its control socket). No instance lock is taken: a server started
 * meanwhile adopts the write as a hand edit (DESIGN D12). The store's notices go to stderr, never into stdout.
 */
export async function openDataDir(loaded: LoadedSettings, options: { createIfMissing: boolean }): Promise<DataDirServices | null> {
  const container = createContainer(loaded);
  container.register(TOKENS.LogDestination, { useValue: process.stderr });
  const store = container.resolve<JsonFileStore>(TOKENS.Store);
  await store.open();
  const core = container.resolve<Core>(TOKENS.Core);
  const { tokens, setup } = core;
  if (!(await store.readRecord())) {
    if (!options.createIfMissing) {
      await store.close();
      return null;
    }
    // Only a missing record is bootstrapped: a temporary one must not be renewed by a CLI call.
    await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(loaded.settings.secretKey) });
  }
  return { store, core, tokens, setup, close: () => store.close() };
}
