import { errorMessage } from '@webui/core/adapter';
import { DIRECTORY_MODE, letsOthersIn } from './file-permissions.js';
import type { FileStats, FileSystem } from './file-system.js';
import type { StoreEvent } from '../store-event.js';

/** Creates the data directory if needed (0700) and warns when group or others may get in; throws, naming it, when it is unusable. */
export async function prepareDataDirectory(fs: FileSystem, dataDir: string, emit: (event: StoreEvent) => void): Promise<void> {
  let stats: FileStats;
  try {
    await fs.mkdir(dataDir, { recursive: true, mode: DIRECTORY_MODE });
    stats = await fs.stat(dataDir);
  } catch (error) {
    throw new Error(`Cannot create or open the data directory ${dataDir}: ${errorMessage(error)}`, { cause: error });
  }
  if (!stats.isDirectory()) throw new Error(`The data directory ${dataDir} is not a directory`);
  // Only a warning: the operator may share the directory on purpose; the file itself stays 0600.
  if (letsOthersIn(stats)) {
    emit({ kind: 'insecure-permissions', path: dataDir, mode: stats.mode & 0o777, fixed: false });
  }
}
