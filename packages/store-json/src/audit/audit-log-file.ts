import { auditLine, type SecurityEvent, type SecurityEventSink } from '@webui/core';
import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { DIRECTORY_MODE, FILE_MODE } from '../file/file-permissions.js';
import { errorCode } from '@webui/core/adapter';
import { makeDirectory } from '../file/make-directory.js';

/** The audit trail inside the data directory; rotated copies are audit.log.1 (newest) to audit.log.N. */
export const AUDIT_LOG_FILE_NAME = 'audit.log';
export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_AUDIT_KEEP = 5;

export interface AuditLogFileOptions {
  dataDir: string;
  /** The live file is rotated before a line would take it past this size. */
  maxBytes: number;
  /** How many rotated files are kept; older ones are deleted. */
  keep: number;
  now?: () => number;
  /**
   * Writes the lines recorded in one turn of the event loop with one write (a group commit) instead of
   * one each; written() tells when they are on disk, so a server can answer after its line is written.
   */
  groupCommit?: boolean;
  /** Told when a write fails, once until a write succeeds again. */
  onError?: (error: unknown) => void;
}

// How often the name audit.log is checked to still be the open file: a stat per line cost more than the append itself.
const IDENTITY_CHECK_INTERVAL_MS = 1_000;

// A group is written at once past this size, so a burst of events never waits in memory.
const MAX_PENDING_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const NEWLINE_BYTE = Buffer.from([NEWLINE]);
const ROTATED_NAME = /^audit\.log\.([1-9][0-9]{0,5})$/;

/**
 * Security events appended as JSON lines to data/audit.log (0600). Each line is one synchronous
 * write on an O_APPEND descriptor, so lines from this and other processes (the CLI) never interleave
 * and a kill can tear at most the line being written, which the next opening closes with a newline.
 * A file rotated by another process or logrotate, or deleted by hand, is noticed within a second
 * (lines meanwhile go where that file went) and always before this process rotates.
 */
export class AuditLogFile implements SecurityEventSink {
  readonly path: string;
  private readonly now: () => number;
  private fd: number | null = null;
  /** Device and inode of the open file, taken when opened: they never change while it is open. */
  private opened: { dev: number; ino: number } | null = null;
  /** When the name was last found to be the open file. */
  private identityCheckedAt = Number.NEGATIVE_INFINITY;
  /** Lines recorded and not yet written (groupCommit), the time of the last one, and the write that will take them. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingAt = 0;
  private pendingWrite: Promise<void> | null = null;
  /** Bytes in the live file: its size when opened, plus our own writes since (others' are counted at the next opening). */
  private size = 0;
  /** A write stopped mid-line: the next line starts with a newline so it stays whole. */
  private torn = false;
  private failing = false;

  constructor(private readonly options: AuditLogFileOptions) {
    this.path = join(options.dataDir, AUDIT_LOG_FILE_NAME);
    this.now = options.now ?? Date.now;
  }

  /**
   * Opens an existing file now, so its mode and a torn last line are fixed at startup; never throws.
   * A missing one is left to the first event, so a data directory where nothing happened stays as it was.
   */
  open(): void {
    try {
      if (existsSync(this.path)) this.openCurrent(this.now());
    } catch (error) {
      this.report(error);
    }
  }

  /**
   * Appends the event's line, at once or (groupCommit) with the others recorded in this turn of the
   * event loop; never throws: a failure goes to onError and the next event tries again.
   */
  record(event: SecurityEvent): void {
    const now = this.now();
    let line: Buffer;
    try {
      line = Buffer.from(`${JSON.stringify(auditLine(event, now))}\n`, 'utf8');
    } catch (error) {
      this.report(error);
      return;
    }
    if (!this.options.groupCommit) {
      this.writeLines([line], now);
      return;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    this.pendingAt = now;
    // A burst recorded without a pause is written at once rather than held in memory.
    if (this.pendingBytes >= MAX_PENDING_BYTES) this.writePending();
    this.pendingWrite ??= new Promise((resolve) =>
      setImmediate(() => {
        this.pendingWrite = null;
        this.writePending();
        resolve();
      }),
    );
  }

  /** Resolves when every line recorded so far is written (or its failure reported); null when none waits. */
  written(): Promise<void> | null {
    return this.pendingWrite;
  }

  private writePending(): void {
    const lines = this.pending;
    if (lines.length === 0) return;
    this.pending = [];
    this.pendingBytes = 0;
    this.writeLines(lines, this.pendingAt);
  }

  /** Writes whole lines in as few writes as the size limit allows, rotating before a line would pass it. */
  private writeLines(lines: Buffer[], now: number): void {
    try {
      let fd = this.openCurrent(now);
      let rotationFailure: unknown = null;
      let group: Buffer[] = [];
      let groupBytes = 0;
      for (const line of lines) {
        if (this.size + groupBytes > 0 && this.size + groupBytes + line.length > this.options.maxBytes) {
          if (group.length > 0) this.append(fd, group);
          group = [];
          groupBytes = 0;
          // Another process may have rotated already: the file it left is the one to measure.
          fd = this.openCurrent(now, { checkNow: true });
          if (this.size > 0 && this.size + line.length > this.options.maxBytes) {
            try {
              this.rotate();
            } catch (error) {
              // A line in an oversized file is better than a lost one.
              rotationFailure = error;
            }
            fd = this.openCurrent(now);
          }
        }
        group.push(line);
        groupBytes += line.length;
      }
      this.append(fd, group);
      if (rotationFailure !== null) this.report(rotationFailure);
      else this.failing = false;
    } catch (error) {
      this.report(error);
    }
  }

  /** Writes what is pending and closes the file; a later record opens it again. */
  close(): void {
    this.writePending();
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing is buffered: every line was written when recorded.
    }
    this.fd = null;
  }

  /** The descriptor of the file now named audit.log: one rotated by the CLI, by logrotate, or deleted by hand is left for a new one. */
  private openCurrent(now: number, { checkNow = false } = {}): number {
    if (this.fd !== null) {
      if (!checkNow && now - this.identityCheckedAt < IDENTITY_CHECK_INTERVAL_MS) return this.fd;
      // The open descriptor's identity was taken when it was opened: one stat of the name tells.
      const named = statSync(this.path, { throwIfNoEntry: false });
      this.identityCheckedAt = now;
      if (named && this.opened && named.ino === this.opened.ino && named.dev === this.opened.dev) return this.fd;
      this.close();
    }
    makeDirectory(this.options.dataDir, DIRECTORY_MODE);
    // Readable too, to look at the last byte; O_APPEND still sends every write to the end.
    const fd = openSync(this.path, 'a+', FILE_MODE);
    try {
      // A file made by hand or an older version may be readable by others; the mode only applies on creation.
      fchmodSync(fd, FILE_MODE);
      const stats = fstatSync(fd);
      this.opened = { dev: stats.dev, ino: stats.ino };
      this.identityCheckedAt = now;
      this.size = stats.size;
      this.torn = this.size > 0 && lastByte(fd, this.size) !== NEWLINE;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    // Ended at once, before anyone else appends to the torn line; if this fails, the next line carries it.
    if (this.torn) this.append(fd, []);
    return fd;
  }

  /** One write of whole lines; after a short write the newline that ends the torn line goes with the next one. */
  private append(fd: number, lines: Buffer[]): void {
    const chunks = this.torn ? [NEWLINE_BYTE, ...lines] : lines;
    const chunk = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    const written = writeSync(fd, chunk);
    this.size += written;
    if (written < chunk.length) {
      this.torn = true;
      throw new Error(`only ${written} of ${chunk.length} bytes of audit lines reached ${this.path}`);
    }
    this.torn = false;
  }

  /** audit.log becomes audit.log.1, each .N becomes .N+1, and those past `keep` are deleted. */
  private rotate(): void {
    this.close();
    const keep = Math.max(1, this.options.keep);
    const rotated = rotatedAuditLogNumbers(this.options.dataDir).reverse();
    for (const n of rotated) if (n >= keep) unlinkIfPresent(rotatedAuditLogPath(this.options.dataDir, n));
    // Highest first, so no rename lands on a file still to be moved. A file gone meanwhile was moved by
    // another process rotating at the same moment: its lines are where that process put them.
    for (const n of rotated)
      if (n < keep) renameIfPresent(rotatedAuditLogPath(this.options.dataDir, n), rotatedAuditLogPath(this.options.dataDir, n + 1));
    renameIfPresent(this.path, rotatedAuditLogPath(this.options.dataDir, 1));
  }

  private report(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.options.onError?.(error);
  }
}

/** The numbers N of the audit.log.N files in `dataDir`, lowest (newest) first; none when the directory is missing. */
export function rotatedAuditLogNumbers(dataDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => ROTATED_NAME.exec(name)?.[1])
    .filter((digits) => digits !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export function rotatedAuditLogPath(dataDir: string, n: number): string {
  return join(dataDir, `${AUDIT_LOG_FILE_NAME}.${n}`);
}

function lastByte(fd: number, size: number): number | undefined {
  const byte = Buffer.alloc(1);
  return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : undefined;
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
