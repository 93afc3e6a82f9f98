import type { FileStats } from './file-system.js';

/** Cheap change detection without reading: a rewrite changes mtime or size, a rename-over changes the inode. */
export function fileSignature(stats: FileStats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}
