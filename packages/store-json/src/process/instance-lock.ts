import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, errorCode } from '@webui/core/adapter';
import { DIRECTORY_MODE, FILE_MODE } from '../file/file-permissions.js';
import { makeDirectory } from '../file/make-directory.js';
import { processIsAlive } from './process-alive.js';

export const LOCK_FILE_NAME = 'webui.lock';

/** The data directory cannot be locked; the message tells the operator what to do, in one line. */
export class InstanceLockError extends Error {}

// Enough for a few starters taking turns through the takeover guard (GUARD_BUSY_WAIT_MS apart).
const MAX_ATTEMPTS = 400;
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
      makeDirectory(dataDir, DIRECTORY_MODE);
    } catch (error) {
      throw new InstanceLockError(`cannot create the data directory ${dataDir}: ${errorMessage(error)}`);
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (createWithPid(path)) return new InstanceLock(path);
      const seen = readLock(path);
      // Removed meanwhile: try again.
      if (!seen) continue;
      if (seen.pid !== null && seen.pid !== process.pid && ownerIsRunning(seen.pid, seen.writtenAtMs)) {
        throw new InstanceLockError(
          `another server (pid ${seen.pid}) is already using the data directory ${dataDir}; stop it first, or remove the lock file ` +
            `${path} if no server runs there`,
        );
      }
      // Stale: its process is gone (killed, crashed) or its pid now belongs to another program.
      if (!removeStale(path, seen.text)) pause(GUARD_BUSY_WAIT_MS);
    }
    throw new InstanceLockError(`cannot take the lock file ${path}; remove it if no server is running`);
  }

  /**
   * The pid of the live server holding `dataDir`'s lock, or null when none does (no lock, or one left
   * by a process that is gone or whose pid now belongs to another program): what a tool asks before
   * talking to the server.
   */
  static holder(dataDir: string): number | null {
    const seen = readLock(join(dataDir, LOCK_FILE_NAME));
    if (!seen || seen.pid === null || seen.pid === process.pid) return null;
    return ownerIsRunning(seen.pid, seen.writtenAtMs) ? seen.pid : null;
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
    writeFileSync(temp, `${process.pid}\n`, { mode: FILE_MODE });
    linkSync(temp, path);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return false;
    // File systems without hard links: exclusive create, with its short window of an empty file.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') return createExclusive(path);
    throw new InstanceLockError(`cannot create the lock file ${path}: ${errorMessage(error)}`);
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
    const fd = openSync(path, 'wx', FILE_MODE);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw new InstanceLockError(`cannot create the lock file ${path}: ${errorMessage(error)}`);
  }
}

/** How long a takeover guard may stand before it is judged abandoned: a holder keeps it for microseconds. */
const ABANDONED_GUARD_MS = 5_000;
/** The pause before trying again while another starter holds the takeover guard. */
const GUARD_BUSY_WAIT_MS = 5;

/**
 * Deletes a stale lock without ever deleting a fresh one: POSIX has no compare-and-delete, so starters
 * that judged a lock stale take turns through a guard file (created exclusively, like the lock), and
 * the holder deletes the lock only if it still holds exactly what was judged. No one can create the
 * lock meanwhile, since it exists until the holder deletes it. False when another starter holds the guard.
 */
function removeStale(path: string, staleText: string): boolean {
  const guard = `${path}.takeover`;
  if (!createWithPid(guard)) {
    removeAbandonedGuard(guard);
    return false;
  }
  try {
    let current: string | null = null;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // Gone already.
    }
    if (current === staleText) unlinkSync(path);
  } finally {
    try {
      unlinkSync(guard);
    } catch {
      // Judged abandoned and removed by another starter: nothing to release.
    }
  }
  return true;
}

/** A guard left by a starter that died holding it would block every later start. */
function removeAbandonedGuard(guard: string): void {
  try {
    if (Date.now() - statSync(guard).mtimeMs > ABANDONED_GUARD_MS) unlinkSync(guard);
  } catch {
    // Released meanwhile.
  }
}

/** Blocks the thread for `ms`: the lock is taken synchronously, before the server does anything else. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
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
