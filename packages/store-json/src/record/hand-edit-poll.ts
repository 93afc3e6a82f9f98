import type { SerialQueue } from '@webui/core/adapter';
import { errorMessage, errorCode } from '@webui/core/adapter';
import { fileSignature } from '../file/file-signature.js';
import { type FileStats, type FileSystem } from '../file/file-system.js';
import { parseRecordFile, type RecordFileContent } from './record-file.js';
import type { StoreEvent } from '../store-event.js';

// Four looks a second keeps hand edits well inside the one second docs/decisions/0012-token-file.md promises.
const POLL_INTERVAL_MS = 250;

export interface HandEditPollOptions {
  fs: FileSystem;
  path: string;
  /** The store's queue: a reload never overlaps a write. */
  queue: SerialQueue;
  emit: (event: StoreEvent) => void;
  /** Takes a valid hand edit into memory. */
  adopt: (content: RecordFileContent) => void;
}

/**
 * Picks up hand edits of the token file within a second (docs/decisions/0012-token-file.md): a stat per poll, a read when the signature
 * changed, a reload when the bytes differ from what was last read or written; an invalid edit is refused.
 */
export class HandEditPoll {
  /** The file's bytes as last read or written by us; a poll that finds them again saw no hand edit. */
  private knownBytes: Uint8Array | null = null;
  /** fileSignature of the file when knownBytes was last confirmed; null forces the next poll to read. */
  private signature: string | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private queued = false;

  constructor(private readonly options: HandEditPollOptions) {}

  /** The file as read at startup; `signature` was taken before the read. */
  rememberRead(bytes: Uint8Array, signature: string): void {
    this.knownBytes = bytes;
    this.signature = signature;
  }

  /** The file as we just wrote it. */
  rememberWritten(content: string): void {
    this.knownBytes = new TextEncoder().encode(content);
    this.signature = null;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.queuePoll(), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops polling; a reload already queued still runs. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private queuePoll(): void {
    // A slow disk must not pile up polls behind one another.
    if (this.queued) return;
    this.queued = true;
    void this.options.queue
      .run(() => this.reloadIfEdited())
      .finally(() => {
        this.queued = false;
      });
  }

  private async reloadIfEdited(): Promise<void> {
    const { fs, path } = this.options;
    let stats: FileStats;
    try {
      stats = await fs.stat(path);
    } catch (error) {
      this.refuseOnce(
        `stat:${errorCode(error) ?? 'unknown'}`,
        errorCode(error) === 'ENOENT' ? 'the file was removed' : errorMessage(error),
      );
      return;
    }
    const signature = fileSignature(stats);
    if (signature === this.signature) return;
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(path);
    } catch (error) {
      this.refuseOnce(signature, errorMessage(error));
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
    this.options.adopt(parsed.value);
    this.options.emit({ kind: 'reloaded', path });
  }

  /** Reports a refused reload once per state of the file, not on every poll. */
  private refuseOnce(signature: string, reason: string): void {
    if (signature === this.signature) return;
    this.signature = signature;
    this.options.emit({ kind: 'reload-refused', path: this.options.path, reason: `${reason}; the last good record stays in force` });
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
