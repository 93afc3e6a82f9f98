import { processIsAlive } from '@webui/store-json';
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from './startup-error.js';

export const LOCK_FILE_NAME = 'webui.lock';

// btime has whole seconds; an owner writes its lock well after its own start.
const START_TIME_SLACK_MS = 2_000;

/** A lock file as read: its text, the pid in it (null when unreadable), and when it was written. */
interface SeenLock {
  text: string;
  pid: number | null;
  writtenAtMs: number;
}

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
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createWithPid(path)) return new InstanceLock(path);
      const seen = readLock(path);
      // Removed meanwhile: try again.
      if (!seen) continue;
      if (seen.pid !== null && seen.pid !== process.pid && ownerIsRunning(seen.pid, seen.writtenAtMs)) {
        throw new StartupError(
          `another server (pid ${seen.pid}) is already using the data directory ${dataDir}; stop it first, or remove the lock file ${path} if no server runs there`,
        );
      }
      // Stale: its process is gone (killed, crashed) or its pid now belongs to another program.
      removeStale(path, seen.text);
    }
    throw new StartupError(`cannot take the lock file ${path}; remove it if no server is running`);
  }

  release(): void {
    try {
      if (readLock(this.path)?.pid === process.pid) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

/** Creates the lock with the pid already in it (link of a finished file), so no other starter ever reads it empty. */
function createWithPid(path: string): boolean {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
    linkSync(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // File systems without hard links: exclusive create, with its short window of an empty file.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') return createExclusive(path);
    throw new StartupError(`cannot create the lock file ${path}: ${(error as Error).message}`);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Never written, or already gone.
    }
  }
}

function createExclusive(path: string): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new StartupError(`cannot create the lock file ${path}: ${(error as Error).message}`);
  }
}

/**
 * Deletes a stale lock without deleting a fresh one: two starters that both found it stale must not
 * have the slower one remove the lock the faster one has just created. So it is moved aside first,
 * and what was moved is given back when it is not the stale lock that was judged.
 */
function removeStale(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    // Gone already: another starter removed it.
    return;
  }
  let moved: string | null = null;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    // Unreadable: treated as not the one judged, so it is given back.
  }
  if (moved !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // A third starter created a lock in between; it owns the directory now.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Nothing left to clean.
  }
}

function readLock(path: string): SeenLock | null {
  try {
    const text = readFileSync(path, 'utf8');
    const writtenAtMs = statSync(path).mtimeMs;
    const pid = Number.parseInt(text.trim(), 10);
    return { text, pid: Number.isInteger(pid) && pid > 0 && /^\d+\s*$/.test(text) ? pid : null, writtenAtMs };
  } catch {
    return null;
  }
}

/** Whether `pid` is alive and can be the process that wrote the lock at `writtenAtMs`. */
function ownerIsRunning(pid: number, writtenAtMs: number): boolean {
  if (!processIsAlive(pid)) return false;
  const info = linuxProcessInfo(pid);
  if (!info) return true;
  // A zombie is a killed server its parent has not reaped yet.
  if (info.state === 'Z') return false;
  // Started after its lock was written: a reused pid (after a crash or a reboot), not the owner.
  return info.startedAtMs <= writtenAtMs + START_TIME_SLACK_MS;
}

/** State and start time from /proc on Linux; null elsewhere, where only the pid can be checked. */
function linuxProcessInfo(pid: number): { state: string; startedAtMs: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, starttime (clock ticks after boot) field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const bootSeconds = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    const ticks = Number(fields[19]);
    if (bootSeconds === undefined || !Number.isFinite(ticks) || fields[0] === undefined) return null;
    // USER_HZ is 100 on every Linux architecture's user ABI.
    return { state: fields[0], startedAtMs: Number(bootSeconds) * 1000 + ticks * 10 };
  } catch {
    return null;
  }
}
