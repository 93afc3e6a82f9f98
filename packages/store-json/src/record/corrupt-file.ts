import { errorMessage, errorCode } from '@webui/core/adapter';
import { type FileSystem } from '../file/file-system.js';

/** Keeps a corrupt file for the operator to inspect (docs/decisions/0012-token-file.md): renamed, never deleted; returns where it went. */
export async function moveCorruptFileAside(fs: FileSystem, path: string, reason: string, nowMs: number): Promise<string> {
  const stamp = new Date(nowMs).toISOString().replace(/:/g, '-');
  let movedTo = `${path}.corrupt-${stamp}`;
  // rename() overwrites silently, so an earlier corrupt copy of the same millisecond needs its own name.
  for (let n = 1; await exists(fs, movedTo); n += 1) movedTo = `${path}.corrupt-${stamp}-${n}`;
  try {
    await fs.rename(path, movedTo);
  } catch (error) {
    throw new Error(`The token file ${path} is unusable (${reason}) and could not be moved aside to ${movedTo}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return movedTo;
}

async function exists(fs: FileSystem, path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw new Error(`Cannot inspect ${path}: ${errorMessage(error)}`, { cause: error });
  }
}
