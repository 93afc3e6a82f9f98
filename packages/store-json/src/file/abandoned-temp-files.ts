import { join } from 'node:path';
import { tempFileWriter } from './atomic-write.js';
import type { FileSystem } from './file-system.js';
import { processIsAlive } from '../process/process-alive.js';
import { RECORD_FILE_NAME } from '../record/record-file.js';

/**
 * A write cut short by a crash (SIGKILL, power loss) leaves its temp file; the record itself is
 * whole (writes are atomic: docs/decisions/0012-token-file.md), so the temp file is litter. Only those of processes that are gone are removed:
 * a CLI command may be writing right now.
 */
export async function removeAbandonedTempFiles(fs: FileSystem, dataDir: string): Promise<void> {
  let names: string[];
  try {
    names = (await fs.readdir?.(dataDir)) ?? [];
  } catch {
    return;
  }
  for (const name of names) {
    const writer = tempFileWriter(name, RECORD_FILE_NAME);
    if (writer === null || writer === process.pid || processIsAlive(writer)) continue;
    await fs.unlink(join(dataDir, name)).catch(() => undefined);
  }
}
