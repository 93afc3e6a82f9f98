import type { Clock, Store } from '@webui/core';
import { MemoryShortLivedState, MemoryStore } from '@webui/core/memory';
import {
  AuditLogFile,
  DEFAULT_AUDIT_KEEP,
  DEFAULT_AUDIT_MAX_BYTES,
  InstanceLock,
  InstanceLockError,
  JsonFileStore,
  type StoreEvent,
} from '@webui/store-json';
import type { Logger } from 'pino';
import type { DirectoryStore } from './directory-store.js';
import { StartupError } from '../startup/startup-error.js';

/** Where a server keeps its state, with the upkeep the assembly drives. */
export interface Storage {
  store: Store;
  /**
   * Takes the data directory for this server (its lock, its audit trail) and makes the store ready; throws a StartupError the operator
   * can act on.
   */
  open(): Promise<void>;
  /** Makes only the store ready, taking nothing: the CLI's way in when no server runs. */
  openStore(): Promise<void>;
  /** For the banner: the data file, the shared store, or that nothing is written. */
  where: string;
  /** For the banner: where a configured token can be read, never the token. */
  tokenPlace: string;
  /**
   * Registers this server among the instances on a shared store and answers how many others run now; none for a file (one server per
   * directory) or memory.
   */
  joinInstances(): Promise<number>;
  /** Whether the store answers right now: a shared store can be lost while the server runs (docs/decisions/0016-shared-store-fails-closed.md). */
  available(): boolean;
  /** The data directory, or null when nothing is written. */
  dataDir: string | null;
  /** Where security events are appended (data/audit.log, opened with the store), or null when nothing is written. */
  audit: AuditLogFile | null;
  /** Drops expired tickets and attempt records, so memory stays bounded (docs/decisions/0014-bounded-memory.md). */
  sweep(): void;
  /** Starts picking up changes made by others (hand edits, the CLI). */
  watch(): void;
  /** Waits for writes in progress and gives the data directory back. */
  close(): Promise<void>;
}

/**
 * The file store over `dataDir`: the record in webui.json (its events logged in words an operator
 * understands), the short-lived state in memory; not opened yet.
 */
export function createFileStore(dataDir: string, clock: Clock, logger: Logger): DirectoryStore {
  const storeLogger = logger.child({ module: 'store' });
  const record = new JsonFileStore({
    dataDir,
    clock,
    onEvent: (event) => {
      const level = event.kind === 'reloaded' ? 'info' : event.kind === 'insecure-permissions' ? 'warn' : 'error';
      storeLogger[level]({ event }, describeStoreEvent(event));
    },
  });
  return jsonFileStore(record, clock);
}

export interface FileStorageOptions {
  /** Rotation of data/audit.log: `[webui] audit_max_bytes` and `audit_keep`. */
  audit: { maxBytes: number; keep: number };
  /** Told when the audit trail cannot be written, once until a write succeeds again. */
  logger?: Logger;
}

const DEFAULT_FILE_STORAGE: FileStorageOptions = { audit: { maxBytes: DEFAULT_AUDIT_MAX_BYTES, keep: DEFAULT_AUDIT_KEEP } };

/** The JSON file's record with the short-lived state in memory: one server per directory, so never another instance. */
export function jsonFileStore(record: JsonFileStore, clock: Clock): DirectoryStore {
  const shortLived = new MemoryShortLivedState(clock);
  return {
    store: shortLived.storeWith(record),
    where: record.path,
    tokenPlace: 'it is the access_token field of the data file',
    open: () => record.open(),
    close: () => record.close(),
    sweep: () => shortLived.sweep(),
    watch: () => record.watch(),
    joinInstances: async () => 0,
    available: () => true,
  };
}

/**
 * The data directory's storage: its store and audit trail. open() takes the directory for this server
 * alone (one server per directory: its lock, its audit.log, its control socket) and opens the store.
 */
export function dataDirectoryStorage(state: DirectoryStore, dataDir: string, options: FileStorageOptions = DEFAULT_FILE_STORAGE): Storage {
  let lock: InstanceLock | undefined;
  const auditLogger = options.logger?.child({ module: 'audit' });
  const audit = new AuditLogFile({
    dataDir,
    ...options.audit,
    // One write per turn of the event loop, not per line: a login flood stays cheap, and answers wait for their line.
    groupCommit: true,
    onError: (error) =>
      auditLogger?.error(
        { err: String(error) },
        'security events cannot be written to the audit log; the server goes on and tries again with the next one',
      ),
  });
  const openStore = async (): Promise<void> => {
    try {
      await state.open();
    } catch (error) {
      throw new StartupError((error as Error).message);
    }
  };
  return {
    store: state.store,
    where: state.where,
    tokenPlace: state.tokenPlace,
    dataDir,
    audit,
    async open() {
      try {
        lock = InstanceLock.acquire(dataDir);
      } catch (error) {
        throw error instanceof InstanceLockError ? new StartupError(error.message) : error;
      }
      try {
        await openStore();
      } catch (error) {
        lock.release();
        lock = undefined;
        throw error;
      }
      audit.open();
    },
    openStore,
    joinInstances: () => state.joinInstances(),
    available: () => state.available(),
    sweep: () => state.sweep(),
    watch: () => state.watch(),
    async close() {
      await state.close();
      audit.close();
      lock?.release();
      lock = undefined;
    },
  };
}

/** The quick start: the whole state in memory, nothing written, gone when the process stops. */
export function memoryStorage(clock: Clock, logger: Logger): Storage {
  const storeLogger = logger.child({ module: 'store' });
  const store = new MemoryStore(clock, {
    onListenerError: (error) =>
      storeLogger.error({ err: String(error) }, describeStoreEvent({ kind: 'listener-failed', reason: String(error) })),
  });
  return {
    store,
    where: 'in memory (--memory: nothing is written)',
    tokenPlace: 'it is held in memory only',
    dataDir: null,
    audit: null,
    open: async () => undefined,
    openStore: async () => undefined,
    joinInstances: async () => 0,
    available: () => true,
    sweep: () => store.sweep(),
    watch: () => undefined,
    close: async () => undefined,
  };
}

function describeStoreEvent(event: StoreEvent): string {
  switch (event.kind) {
    case 'corrupt-file-moved':
      // The file moved aside took the API keys with it (docs/decisions/0012-token-file.md): say where they are and how to get them back.
      return (
        `webui.json was not valid (${event.reason}); it was moved to ${event.movedTo} and a new temporary token was made. ` +
        `Any API keys it held are in that file: to restore them and the token, stop the server, fix the JSON in ${event.movedTo} and ` +
        `move it back to ${event.path}`
      );
    case 'insecure-permissions':
      return 'the data directory or webui.json is readable by others';
    case 'reloaded':
      return 'webui.json was edited by hand; the change is in force';
    case 'reload-refused':
      return 'a hand edit of webui.json is not valid; the last good state stays in force';
    case 'listener-failed':
      return 'a listener of record changes failed; the change itself stands';
  }
}
