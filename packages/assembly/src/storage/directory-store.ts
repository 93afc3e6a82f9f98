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
  /** Registers this server among the instances on the store (a shared one), and answers how many others run now. */
  joinInstances(): Promise<number>;
  available(): boolean;
}
