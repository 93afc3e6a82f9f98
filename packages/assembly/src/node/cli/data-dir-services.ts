import { secretKeyFingerprint, type LoadedSettings } from '../../index.js';
import type { Core, Store } from '@webui/core';
import { composedParts, createContainer, TOKENS } from '../container.js';

export interface DataDirServices {
  /** The durable record, read as it is now. */
  store: Store['record'];
  core: Core;
  tokens: Core['tokens'];
  setup: Core['setup'];
  close(): Promise<void>;
}

/**
 * The core over the configured store (the data directory's webui.json, or the shared Redis), composed
 * by the server's container, for the CLI when no server runs on this data directory (a running one is
 * asked through its control socket). No instance lock is taken: a server started meanwhile adopts the
 * write as a hand edit (docs/decisions/0012-token-file.md), servers on a shared store hear of it at once. The store's notices go to stderr, never into stdout.
 */
export async function openDataDir(loaded: LoadedSettings, options: { createIfMissing: boolean }): Promise<DataDirServices | null> {
  const container = createContainer(loaded);
  container.register(TOKENS.LogDestination, { useValue: process.stderr });
  const { storage, core } = composedParts(container);
  await storage.openStore();
  const store = storage.store.record;
  const { tokens, setup } = core;
  if (!(await store.readRecord())) {
    if (!options.createIfMissing) {
      await storage.close();
      return null;
    }
    // Only a missing record is bootstrapped: a temporary one must not be renewed by a CLI call.
    await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(loaded.settings.secretKey) });
  }
  return { store, core, tokens, setup, close: () => storage.close() };
}
