import type { FileStats, FileSystem } from './file-system.js';
import type { StoreEvent } from '../store-event.js';

/** The token file is a secret: owner read and write only. */
export const FILE_MODE = 0o600;
export const DIRECTORY_MODE = 0o700;
const GROUP_OR_OTHER_BITS = 0o077;
// Windows reports synthetic mode bits, so permission warnings there would be noise.
const CHECKS_MODES = process.platform !== 'win32';

/** Whether group or others may get in, on a platform whose mode bits mean something. */
export function letsOthersIn(stats: FileStats): boolean {
  return CHECKS_MODES && (stats.mode & GROUP_OR_OTHER_BITS) !== 0;
}

/** A hand-made file may be world-readable; the token is a secret, so it becomes 0600 like our own writes. */
export async function tightenFileMode(fs: FileSystem, path: string, stats: FileStats, emit: (event: StoreEvent) => void): Promise<void> {
  if (!letsOthersIn(stats)) return;
  const mode = stats.mode & 0o777;
  try {
    await fs.chmod(path, FILE_MODE);
    emit({ kind: 'insecure-permissions', path, mode, fixed: true });
  } catch {
    emit({ kind: 'insecure-permissions', path, mode, fixed: false });
  }
}
