import type { TokenRecord } from '@webui/core/adapter';
import { join } from 'node:path';
import { errorMessage, errorCode } from '@webui/core/adapter';
import { nodeFileSystem, type FileSystem } from '../file/file-system.js';
import { parseRecordFile, RECORD_FILE_NAME } from './record-file.js';

/** What a data directory's webui.json holds, read without touching anything: no directory made, no file moved. */
export type RecordFileRead =
  { kind: 'missing' } | { kind: 'read'; path: string; record: TokenRecord } | { kind: 'invalid'; path: string; reason: string };

/** Reads `<dataDir>/webui.json` as it is, for moving its record to another store. */
export async function readRecordFile(dataDir: string, fs: FileSystem = nodeFileSystem): Promise<RecordFileRead> {
  const path = join(dataDir, RECORD_FILE_NAME);
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { kind: 'missing' };
    return { kind: 'invalid', path, reason: errorMessage(error) };
  }
  const parsed = parseRecordFile(bytes);
  return parsed.ok ? { kind: 'read', path, record: parsed.value.record } : { kind: 'invalid', path, reason: parsed.reason };
}
