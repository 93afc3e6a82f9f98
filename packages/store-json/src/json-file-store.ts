import { MemoryStore, RecordChangeListeners, SerialQueue, type AttemptRecord, type Clock, type MemoryStoreLimits, type RecordChangeListener, type Store, type TicketGrant, type TokenRecord } from '@webui/core';
import { join } from 'node:path';
import { replaceFile, syncDirectory, tempFileWriter } from './atomic-write.js';
import { fileSignature } from './file-signature.js';
import { errorCode, nodeFileSystem, type FileStats, type FileSystem } from './file-system.js';
import { processIsAlive } from './process-alive.js';
import { parseRecordFile, RECORD_FILE_NAME, serializeRecordFile, type UnknownFields } from './record-file.js';
import type { StoreEvent } from './store-event.js';

export interface JsonFileStoreOptions {
  dataDir: string;
  clock: Clock;
  limits?: Partial<MemoryStoreLimits>;
  fs?: FileSystem;
  onEvent?: (event: StoreEvent) => void;
}

const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;
const GROUP_OR_OTHER_BITS = 0o077;
// Four looks a second keeps hand edits well inside the one second DESIGN D12 promises.
const POLL_INTERVAL_MS = 250;
// Windows reports synthetic mode bits, so permission warnings there would be noise.
const CHECKS_MODES = process.platform !== 'win32';

/**
 * The Store over `<dataDir>/webui.json`: the durable record is read once at open() and served
 * from memory, written atomically and one write at a time, and reloaded when edited by hand.
 * Attempts and tickets are short-lived and stay in memory.
 */
export class JsonFileStore implements Store {
  readonly path: string;
  private readonly dataDir: string;
  private readonly clock: Clock;
  private readonly fs: FileSystem;
  private readonly emit: (event: StoreEvent) => void;
  private readonly shortLived: MemoryStore;
  private readonly queue = new SerialQueue();
  private readonly listeners = new RecordChangeListeners();
  private opened = false;
  private record: TokenRecord | null = null;
  private unknownFields: UnknownFields = {};
  /** The file's bytes as last read or written by us; a poll that finds them again saw no hand edit. */
  private knownBytes: Uint8Array | null = null;
  /** fileSignature of the file when knownBytes was last confirmed; null forces the next poll to read. */
  private signature: string | null = null;
  private poll: ReturnType<typeof setInterval> | undefined;
  private pollQueued = false;

  constructor(options: JsonFileStoreOptions) {
    this.dataDir = options.dataDir;
    this.path = join(options.dataDir, RECORD_FILE_NAME);
    this.clock = options.clock;
    this.fs = options.fs ?? nodeFileSystem;
    this.emit = options.onEvent ?? (() => undefined);
    this.shortLived = new MemoryStore(options.clock, options.limits ? { limits: options.limits } : {});
  }

  /** Prepares the data directory and reads the file; throws, naming the path, when startup must stop. */
  async open(): Promise<void> {
    await this.queue.run(async () => {
      await this.prepareDirectory();
      await this.removeAbandonedTempFiles();
      await this.loadAtStartup();
      this.opened = true;
    });
  }

  /** Starts picking up hand edits of the file (DESIGN D12). */
  watch(): void {
    this.requireOpen();
    if (this.poll) return;
    this.poll = setInterval(() => this.queuePoll(), POLL_INTERVAL_MS);
    this.poll.unref();
  }

  /** Stops the poll and waits for a write or reload in progress. */
  async close(): Promise<void> {
    clearInterval(this.poll);
    this.poll = undefined;
    await this.queue.idle();
  }

  /** Subscribes to changes of the record (own writes and hand edits); returns the unsubscribe. */
  onRecordChanged(listener: RecordChangeListener): () => void {
    return this.listeners.add(listener);
  }

  async readRecord(): Promise<TokenRecord | null> {
    this.requireOpen();
    return this.record ? { ...this.record } : null;
  }

  async writeRecord(record: TokenRecord): Promise<void> {
    this.requireOpen();
    // Copied now: a caller mutating its object while the write waits its turn must not change it.
    const next = { ...record };
    return this.queue.run(async () => {
      const unknownFields = await this.newestUnknownFields();
      const content = serializeRecordFile(next, unknownFields);
      await replaceFile(this.fs, this.path, content, FILE_MODE);
      // The file now holds `next`; memory follows it even if the directory sync below fails.
      this.knownBytes = new TextEncoder().encode(content);
      this.signature = null;
      this.unknownFields = unknownFields;
      this.adopt(next);
      await syncDirectory(this.fs, this.dataDir);
    });
  }

  readAttempts(key: string): Promise<AttemptRecord | null> {
    return this.shortLived.readAttempts(key);
  }

  writeAttempts(key: string, record: AttemptRecord, expiresAt: number): Promise<void> {
    return this.shortLived.writeAttempts(key, record, expiresAt);
  }

  deleteAttempts(key: string): Promise<void> {
    return this.shortLived.deleteAttempts(key);
  }

  putTicket(ticket: string, grant: TicketGrant): Promise<void> {
    return this.shortLived.putTicket(ticket, grant);
  }

  consumeTicket(ticket: string): Promise<TicketGrant | null> {
    return this.shortLived.consumeTicket(ticket);
  }

  revokeTickets(sessionToken: string): Promise<void> {
    return this.shortLived.revokeTickets(sessionToken);
  }

  /** Drops expired tickets and attempt records; a server calls it on a timer (DESIGN D14). */
  sweep(): void {
    this.shortLived.sweep();
  }

  private requireOpen(): void {
    if (!this.opened) throw new Error(`JsonFileStore for ${this.path}: call open() before use`);
  }

  private async prepareDirectory(): Promise<void> {
    let stats: FileStats;
    try {
      await this.fs.mkdir(this.dataDir, { recursive: true, mode: DIRECTORY_MODE });
      stats = await this.fs.stat(this.dataDir);
    } catch (error) {
      throw new Error(`Cannot create or open the data directory ${this.dataDir}: ${describe(error)}`, { cause: error });
    }
    if (!stats.isDirectory()) throw new Error(`The data directory ${this.dataDir} is not a directory`);
    // Only a warning: the operator may share the directory on purpose; the file itself stays 0600.
    if (CHECKS_MODES && (stats.mode & GROUP_OR_OTHER_BITS) !== 0) {
      this.emit({ kind: 'insecure-permissions', path: this.dataDir, mode: stats.mode & 0o777, fixed: false });
    }
  }

  /**
   * A write cut short by a crash (SIGKILL, power loss) leaves its temp file; the record itself is
   * whole (DESIGN D12), so the temp file is litter. Only those of processes that are gone are removed:
   * a CLI command may be writing right now.
   */
  private async removeAbandonedTempFiles(): Promise<void> {
    let names: string[];
    try {
      names = (await this.fs.readdir?.(this.dataDir)) ?? [];
    } catch {
      return;
    }
    for (const name of names) {
      const writer = tempFileWriter(name, RECORD_FILE_NAME);
      if (writer === null || writer === process.pid || processIsAlive(writer)) continue;
      await this.fs.unlink(join(this.dataDir, name)).catch(() => undefined);
    }
  }

  private async loadAtStartup(): Promise<void> {
    let stats: FileStats;
    try {
      stats = await this.fs.stat(this.path);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw unreadableFile(this.path, error);
      this.record = null;
      return;
    }
    if (stats.isDirectory()) throw new Error(`The token file ${this.path} is a directory; move it away so the server can create the file`);
    if (!stats.isFile()) throw new Error(`The token file ${this.path} is not a regular file`);
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(this.path);
    } catch (error) {
      throw unreadableFile(this.path, error);
    }
    const parsed = parseRecordFile(bytes);
    if (!parsed.ok) {
      await this.moveAside(parsed.reason);
      this.record = null;
      return;
    }
    await this.tightenFileMode(stats);
    this.record = parsed.value.record;
    this.unknownFields = parsed.value.unknownFields;
    this.knownBytes = bytes;
    // Taken before the read: a change in between costs one extra read, never a missed edit.
    this.signature = fileSignature(stats);
  }

  /** Keeps a corrupt file for the operator to inspect (DESIGN D12): renamed, never deleted. */
  private async moveAside(reason: string): Promise<void> {
    const stamp = new Date(this.clock.now()).toISOString().replace(/:/g, '-');
    let movedTo = `${this.path}.corrupt-${stamp}`;
    // rename() overwrites silently, so an earlier corrupt copy of the same millisecond needs its own name.
    for (let n = 1; await this.exists(movedTo); n += 1) movedTo = `${this.path}.corrupt-${stamp}-${n}`;
    try {
      await this.fs.rename(this.path, movedTo);
    } catch (error) {
      throw new Error(`The token file ${this.path} is unusable (${reason}) and could not be moved aside to ${movedTo}: ${describe(error)}`, { cause: error });
    }
    this.emit({ kind: 'corrupt-file-moved', path: this.path, movedTo, reason });
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.fs.stat(path);
      return true;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw new Error(`Cannot inspect ${path}: ${describe(error)}`, { cause: error });
    }
  }

  /** A hand-made file may be world-readable; the token is a secret, so it becomes 0600 like our own writes. */
  private async tightenFileMode(stats: FileStats): Promise<void> {
    if (!CHECKS_MODES || (stats.mode & GROUP_OR_OTHER_BITS) === 0) return;
    const mode = stats.mode & 0o777;
    try {
      await this.fs.chmod(this.path, FILE_MODE);
      this.emit({ kind: 'insecure-permissions', path: this.path, mode, fixed: true });
    } catch {
      this.emit({ kind: 'insecure-permissions', path: this.path, mode, fixed: false });
    }
  }

  /** Unknown fields of the file as it is now, so fields added by hand since the last poll survive the write. */
  private async newestUnknownFields(): Promise<UnknownFields> {
    try {
      const parsed = parseRecordFile(await this.fs.readFile(this.path));
      if (parsed.ok) return parsed.value.unknownFields;
    } catch {
      // Missing or unreadable right now: the last fields seen are the best we have.
    }
    return this.unknownFields;
  }

  private queuePoll(): void {
    // A slow disk must not pile up polls behind one another.
    if (this.pollQueued) return;
    this.pollQueued = true;
    void this.queue.run(() => this.reloadIfEdited()).finally(() => {
      this.pollQueued = false;
    });
  }

  private async reloadIfEdited(): Promise<void> {
    let stats: FileStats;
    try {
      stats = await this.fs.stat(this.path);
    } catch (error) {
      this.refuseOnce(`stat:${errorCode(error) ?? 'unknown'}`, errorCode(error) === 'ENOENT' ? 'the file was removed' : describe(error));
      return;
    }
    const signature = fileSignature(stats);
    if (signature === this.signature) return;
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(this.path);
    } catch (error) {
      this.refuseOnce(signature, describe(error));
      return;
    }
    if (this.knownBytes && sameBytes(bytes, this.knownBytes)) {
      this.signature = signature;
      return;
    }
    const parsed = parseRecordFile(bytes);
    if (!parsed.ok) {
      // Not moved aside while running: the operator may be in the middle of an edit.
      this.refuseOnce(signature, parsed.reason);
      return;
    }
    this.signature = signature;
    this.knownBytes = bytes;
    this.unknownFields = parsed.value.unknownFields;
    this.adopt(parsed.value.record);
    this.emit({ kind: 'reloaded', path: this.path });
  }

  /** Reports a refused reload once per state of the file, not on every poll. */
  private refuseOnce(signature: string, reason: string): void {
    if (signature === this.signature) return;
    this.signature = signature;
    this.emit({ kind: 'reload-refused', path: this.path, reason: `${reason}; the last good record stays in force` });
  }

  private adopt(next: TokenRecord | null): void {
    const previous = this.record;
    this.record = next;
    this.listeners.notify(next, previous, (error) => this.emit({ kind: 'listener-failed', reason: describe(error) }));
  }
}

function unreadableFile(path: string, error: unknown): Error {
  const code = errorCode(error);
  const hint = code === 'EACCES' || code === 'EPERM' ? ': permission denied; give the server user read and write access (mode 0600)' : `: ${describe(error)}`;
  return new Error(`Cannot read the token file ${path}${hint}`, { cause: error });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
