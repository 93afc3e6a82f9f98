import { errorCode } from '@webui/core/adapter';
import { type FileSystem, type WritableFile } from './file-system.js';

// Distinguishes temp files of concurrent stores in one process; the pid separates processes.
let tempCounter = 0;
const TEMP_INFIX = '.tmp-';

/** The pid that wrote `name` as a temp file of `fileName` (`<fileName>.tmp-<pid>-<n>`), or null when it is not one. */
export function tempFileWriter(name: string, fileName: string): number | null {
  if (!name.startsWith(`${fileName}${TEMP_INFIX}`)) return null;
  const match = /^(\d+)-\d+$/.exec(name.slice(fileName.length + TEMP_INFIX.length));
  return match ? Number(match[1]) : null;
}

/**
 * Replaces `path` with `content` so that a reader sees the old file or the new one, never a mix:
 * temp file, fsync, rename over (docs/decisions/0012-token-file.md). Any failure removes the temp file and leaves `path`
 * untouched. Call syncDirectory afterwards to make the rename survive a crash.
 */
export async function replaceFile(fs: FileSystem, path: string, content: string, mode: number): Promise<void> {
  tempCounter += 1;
  const tempPath = `${path}${TEMP_INFIX}${process.pid}-${tempCounter}`;
  let file: WritableFile | undefined;
  let created = false;
  try {
    // 'wx' never follows or clobbers a file planted at the temp name.
    file = await fs.open(tempPath, 'wx', mode);
    created = true;
    await file.writeFile(content);
    await file.sync();
    const closing = file;
    file = undefined;
    await closing.close();
    await fs.rename(tempPath, path);
  } catch (error) {
    await file?.close().catch(() => undefined);
    if (created) await fs.unlink(tempPath).catch(() => undefined);
    throw error;
  }
}

/** Makes a rename in `directory` durable; some platforms cannot open or fsync a directory, and that is not an error there. */
export async function syncDirectory(fs: FileSystem, directory: string): Promise<void> {
  let handle: WritableFile;
  try {
    handle = await fs.open(directory, 'r');
  } catch (error) {
    if (isUnsupported(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!isUnsupported(error)) throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function isUnsupported(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'ENOTSUP';
}
