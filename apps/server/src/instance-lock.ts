import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from './startup-error.js';

export const LOCK_FILE_NAME = 'webui.lock';

/**
 * One server per data directory: two would each hold the token in memory and undo the other's
 * writes. The lock file holds the owner's pid; a lock whose process is gone is stale and taken over.
 */
export class InstanceLock {
  private constructor(private readonly path: string) {}

  static acquire(dataDir: string): InstanceLock {
    const path = join(dataDir, LOCK_FILE_NAME);
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new StartupError(`cannot create the data directory ${dataDir}: ${(error as Error).message}`);
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return new InstanceLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new StartupError(`cannot create the lock file ${path}: ${(error as Error).message}`);
        }
      }
      const owner = readOwner(path);
      if (owner !== null && owner !== process.pid && isAlive(owner)) {
        throw new StartupError(`another server (pid ${owner}) is already using the data directory ${dataDir}; stop it first (lock file ${path})`);
      }
      // Stale: its process is gone (killed, crashed). Remove and try again.
      try {
        unlinkSync(path);
      } catch {
        // Someone else removed it first; the next attempt decides.
      }
    }
    throw new StartupError(`cannot take the lock file ${path}; remove it if no server is running`);
  }

  release(): void {
    try {
      if (readOwner(this.path) === process.pid) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

function readOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
