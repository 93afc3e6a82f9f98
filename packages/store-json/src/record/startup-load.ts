import type { Clock } from '@webui/core';
import { moveCorruptFileAside } from './corrupt-file.js';
import { errorMessage, errorCode } from '@webui/core/adapter';
import { fileSignature } from '../file/file-signature.js';
import { tightenFileMode } from '../file/file-permissions.js';
import { type FileStats, type FileSystem } from '../file/file-system.js';
import { parseRecordFile, type RecordFileContent } from './record-file.js';
import type { StoreEvent } from '../store-event.js';

/** The file as read at startup, with what the hand-edit poll compares against later. */
export interface StartupLoad {
  content: RecordFileContent;
  bytes: Uint8Array;
  signature: string;
}

/**
 * Reads the token file once at open(): null when there is none or it was corrupt and moved aside.
 * Throws, naming the path, when startup must stop.
 */
export async function loadRecordFileAtStartup(
  fs: FileSystem,
  path: string,
  clock: Clock,
  emit: (event: StoreEvent) => void,
): Promise<StartupLoad | null> {
  let stats: FileStats;
  try {
    stats = await fs.stat(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw unreadableFile(path, error);
    return null;
  }
  if (stats.isDirectory()) throw new Error(`The token file ${path} is a directory; move it away so the server can create the file`);
  if (!stats.isFile()) throw new Error(`The token file ${path} is not a regular file`);
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(path);
  } catch (error) {
    throw unreadableFile(path, error);
  }
  const parsed = parseRecordFile(bytes);
  if (!parsed.ok) {
    const movedTo = await moveCorruptFileAside(fs, path, parsed.reason, clock.now());
    emit({ kind: 'corrupt-file-moved', path, movedTo, reason: parsed.reason });
    return null;
  }
  await tightenFileMode(fs, path, stats, emit);
  // Taken before the read: a change in between costs one extra read, never a missed edit.
  return { content: parsed.value, bytes, signature: fileSignature(stats) };
}

function unreadableFile(path: string, error: unknown): Error {
  const code = errorCode(error);
  const hint =
    code === 'EACCES' || code === 'EPERM'
      ? ': permission denied; give the server user read and write access (mode 0600)'
      : `: ${errorMessage(error)}`;
  return new Error(`Cannot read the token file ${path}${hint}`, { cause: error });
}
