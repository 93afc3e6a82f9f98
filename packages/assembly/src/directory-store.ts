import type { Store } from '@webui/core';

/** A store the data directory's storage opens and closes: the JSON file, or a shared one (Redis). */
export interface DirectoryStore {
  store: Store;
  where: string;
  tokenPlace: string;
  /** Makes the store ready; throws an Error whose message the operator can act on. */
  open(): Promise<void>;
  close(): Promise<void>;
  sweep(): void;
  watch(): void;
  liveInstances(): Promise<number>;
  available(): boolean;
}
