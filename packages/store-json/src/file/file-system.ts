import * as fsp from 'node:fs/promises';
import { makeDirectory } from './make-directory.js';

/** The part of an open file the store writes through; node's FileHandle satisfies it. */
export interface WritableFile {
  writeFile(data: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface FileStats {
  mtimeMs: number;
  size: number;
  ino: number;
  mode: number;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** The few file-system calls the store makes, so tests can inject ENOSPC, EROFS or EACCES. */
export interface FileSystem {
  open(path: string, flags: string, mode?: number): Promise<WritableFile>;
  readFile(path: string): Promise<Uint8Array>;
  rename(from: string, to: string): Promise<void>;
  stat(path: string): Promise<FileStats>;
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<string | undefined>;
  chmod(path: string, mode: number): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Names in a directory; without it, temp files a crash left behind are not cleaned up. */
  readdir?(path: string): Promise<string[]>;
}

export const nodeFileSystem: FileSystem = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  readFile: (path) => fsp.readFile(path),
  rename: (from, to) => fsp.rename(from, to),
  stat: (path) => fsp.stat(path),
  mkdir: async (path, options) => {
    makeDirectory(path, options.mode);
    return undefined;
  },
  chmod: (path, mode) => fsp.chmod(path, mode),
  unlink: (path) => fsp.unlink(path),
  readdir: (path) => fsp.readdir(path),
};
