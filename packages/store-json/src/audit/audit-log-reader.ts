import { SECURITY_EVENT_NAMES, type AuditLine } from '@webui/core';
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { AUDIT_LOG_FILE_NAME, rotatedAuditLogNumbers, rotatedAuditLogPath } from './audit-log-file.js';
import { errorMessage, errorCode } from '@webui/core/adapter';

export interface AuditLogFilter {
  /** Only lines at or after this time (ms since the epoch). */
  since?: number;
  /** Only these events; every event when absent. */
  events?: readonly string[];
}

export interface AuditLogRead {
  /** Oldest first, each as it was written. */
  lines: AuditLine[];
  /** Lines that are not whole audit lines (torn by a crash, edited by hand). */
  skipped: number;
  /** The files read, oldest first; empty when there is no audit trail yet. */
  files: string[];
}

// Only what every line has: a line of a newer version with fields this one does not know still reads.
const AuditLineShape = v.looseObject({
  time: v.pipe(v.string(), v.isoTimestamp()),
  event: v.picklist(SECURITY_EVENT_NAMES),
  address: v.nullable(v.string()),
  via: v.string(),
});

const CHUNK_BYTES = 64 * 1024;
// Ours are a few hundred bytes: anything this long is not an audit line, and is not held in memory.
const MAX_LINE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The audit trail of `dataDir`, rotated files first (audit.log.N ... audit.log.1, then audit.log); throws only when a file exists but
 * cannot be read.
 */
export function readAuditLog(dataDir: string, filter: AuditLogFilter = {}): AuditLogRead {
  const read: AuditLogRead = { lines: [], skipped: 0, files: [] };
  const events = filter.events === undefined ? null : new Set(filter.events);
  const paths = [
    ...rotatedAuditLogNumbers(dataDir)
      .reverse()
      .map((n) => rotatedAuditLogPath(dataDir, n)),
    join(dataDir, AUDIT_LOG_FILE_NAME),
  ];
  for (const path of paths) {
    const found = forEachLine(path, (text) => {
      const line = text === null ? null : parseAuditLine(text);
      if (line === null) {
        read.skipped++;
        return;
      }
      if (filter.since !== undefined && Date.parse(line.time) < filter.since) return;
      if (events !== null && !events.has(line.event)) return;
      read.lines.push(line);
    });
    if (found) read.files.push(path);
  }
  return read;
}

/** One line of the file, or null when it is not JSON or lacks the fields every audit line has. */
export function parseAuditLine(text: string): AuditLine | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  // The per-event fields are the writer's: the shape checked is what readers filter and print by.
  return v.is(AuditLineShape, json) && !Number.isNaN(Date.parse(json.time)) ? (json as AuditLine) : null;
}

/**
 * Calls `onLine` for each non-blank line (null for one over MAX_LINE_BYTES), the last one even without
 * its newline (a torn line, to be counted); reads in chunks, since a file may be larger than the
 * longest string. False when the file is missing.
 */
function forEachLine(path: string, onLine: (text: string | null) => void): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw new Error(`cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let oversized = false;
    const emit = (last: Buffer) => {
      if (oversized || pendingBytes + last.length > MAX_LINE_BYTES) onLine(null);
      else {
        const text = Buffer.concat([...pending, last]).toString('utf8');
        if (text.trim() !== '') onLine(text);
      }
      pending = [];
      pendingBytes = 0;
      oversized = false;
    };
    for (;;) {
      const length = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (length === 0) break;
      let start = 0;
      // Bounded by length: past it the buffer still holds the previous chunk.
      for (let end = chunk.indexOf(NEWLINE, start); end !== -1 && end < length; end = chunk.indexOf(NEWLINE, start)) {
        emit(chunk.subarray(start, end));
        start = end + 1;
      }
      if (start === length) continue;
      pendingBytes += length - start;
      if (pendingBytes > MAX_LINE_BYTES) {
        oversized = true;
        pending = [];
      } else {
        // Copied: the chunk buffer is reused by the next read.
        pending.push(Buffer.from(chunk.subarray(start, length)));
      }
    }
    if (pendingBytes > 0 || oversized) emit(Buffer.alloc(0));
  } catch (error) {
    throw new Error(`cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  } finally {
    closeSync(fd);
  }
  return true;
}
