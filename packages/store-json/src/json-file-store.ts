import { copyTokenRecord, RecordChangeListeners, sameTokenRecord, SerialQueue, errorMessage } from '@webui/core/adapter';
import type { Clock } from '@webui/core';
import type { Awaitable, RecordChangeListener, RecordChangeOrigin, RecordStore, RecordSwap, TokenRecord } from '@webui/core/adapter';
import { join } from 'node:path';
import { removeAbandonedTempFiles } from './file/abandoned-temp-files.js';
import { replaceFile, syncDirectory } from './file/atomic-write.js';
import { prepareDataDirectory } from './file/data-directory.js';
import { FILE_MODE } from './file/file-permissions.js';
import { nodeFileSystem, type FileSystem } from './file/file-system.js';
import { HandEditPoll } from './record/hand-edit-poll.js';
import { parseRecordFile, RECORD_FILE_NAME, serializeRecordFile, type UnknownFields } from './record/record-file.js';
import { loadRecordFileAtStartup } from './record/startup-load.js';
import type { StoreEvent } from './store-event.js';

export interface JsonFileStoreOptions {
  dataDir: string;
  clock: Clock;
  fs?: FileSystem;
  onEvent?: (event: StoreEvent) => void;
}

/**
 * The durable record in `<dataDir>/webui.json`: read once at open() and served from memory, written
 * atomically and one write at a time, and reloaded when edited by hand. The short-lived state is not
 * the file's: a server keeps it in core's memory (MemoryShortLivedState), beside this record.
 */
export class JsonFileStore implements RecordStore {
  readonly path: string;
  private readonly dataDir: string;
  private readonly clock: Clock;
  private readonly fs: FileSystem;
  private readonly emit: (event: StoreEvent) => void;
  private readonly queue = new SerialQueue();
  private readonly listeners = new RecordChangeListeners();
  private readonly handEdits: HandEditPoll;
  private opened = false;
  private record: TokenRecord | null = null;
  private unknownFields: UnknownFields = {};

  constructor(options: JsonFileStoreOptions) {
    this.dataDir = options.dataDir;
    this.path = join(options.dataDir, RECORD_FILE_NAME);
    this.clock = options.clock;
    this.fs = options.fs ?? nodeFileSystem;
    this.emit = options.onEvent ?? (() => undefined);
    this.handEdits = new HandEditPoll({
      fs: this.fs,
      path: this.path,
      queue: this.queue,
      emit: this.emit,
      adopt: ({ record, unknownFields }) => {
        this.unknownFields = unknownFields;
        this.adopt(record, 'elsewhere');
      },
    });
  }

  /** Prepares the data directory and reads the file; throws, naming the path, when startup must stop. */
  async open(): Promise<void> {
    await this.queue.run(async () => {
      await prepareDataDirectory(this.fs, this.dataDir, this.emit);
      await removeAbandonedTempFiles(this.fs, this.dataDir);
      const loaded = await loadRecordFileAtStartup(this.fs, this.path, this.clock, this.emit);
      if (loaded) {
        this.record = loaded.content.record;
        this.unknownFields = loaded.content.unknownFields;
        this.handEdits.rememberRead(loaded.bytes, loaded.signature);
      } else {
        this.record = null;
      }
      this.opened = true;
    });
  }

  /** Starts picking up hand edits of the file, in force within a second (docs/decisions/0012-token-file.md). */
  watch(): void {
    this.requireOpen();
    this.handEdits.start();
  }

  /** Stops the poll and waits for a write or reload in progress. */
  async close(): Promise<void> {
    this.handEdits.stop();
    await this.queue.idle();
  }

  /** Subscribes to changes of the record (own writes and hand edits); returns the unsubscribe. */
  onRecordChanged(listener: RecordChangeListener): () => void {
    return this.listeners.add(listener);
  }

  /** At once: the record is in memory (a misuse before open() is a rejected promise, as from any other method). */
  readRecord(): Awaitable<TokenRecord | null> {
    if (!this.opened) return Promise.reject(this.notOpen());
    return this.record ? copyTokenRecord(this.record) : null;
  }

  async swapRecord(expected: TokenRecord | null, record: TokenRecord): Promise<RecordSwap> {
    this.requireOpen();
    // Copied now: a caller mutating its object while the write waits its turn must not change it.
    const next = copyTokenRecord(record);
    return this.queue.run(async (): Promise<RecordSwap> => {
      // Compared in the queue, after any write or hand edit that came first.
      if (!sameTokenRecord(this.record, expected)) return { swapped: false, current: this.record ? copyTokenRecord(this.record) : null };
      const unknownFields = await this.newestUnknownFields();
      const content = serializeRecordFile(next, unknownFields);
      await replaceFile(this.fs, this.path, content, FILE_MODE);
      // The file now holds `next`; memory follows it even if the directory sync below fails.
      this.handEdits.rememberWritten(content);
      this.unknownFields = unknownFields;
      this.adopt(next, 'this_process');
      await syncDirectory(this.fs, this.dataDir);
      return { swapped: true };
    });
  }

  private requireOpen(): void {
    if (!this.opened) throw this.notOpen();
  }

  private notOpen(): Error {
    return new Error(`JsonFileStore for ${this.path}: call open() before use`);
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

  private adopt(next: TokenRecord | null, origin: RecordChangeOrigin): void {
    const previous = this.record;
    this.record = next;
    this.listeners.notify(next, previous, (error) => this.emit({ kind: 'listener-failed', reason: errorMessage(error) }), origin);
  }
}
