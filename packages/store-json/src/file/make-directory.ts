import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errorCode } from '@webui/core/adapter';

/**
 * mkdir -p with one try per missing directory. Node's own recursive mkdir spins for ever (100 % CPU, the
 * event loop blocked, SIGTERM unheard) where mkdir answers ENOENT under a parent that exists, as in
 * /proc/self/webui; here that ENOENT is thrown, naming the directory.
 */
export function makeDirectory(path: string, mode: number): void {
  for (const directory of missingDirectories(resolve(path))) {
    try {
      mkdirSync(directory, { mode });
    } catch (error) {
      // Made meanwhile by another starter: what was wanted.
      if (errorCode(error) !== 'EEXIST') throw error;
    }
  }
}

/** The directories of `path` to make, top first: those that do not exist; walks up at most once per path component. */
function missingDirectories(path: string): string[] {
  const missing: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    const code = statCode(current);
    if (code === null) break;
    // Not "no such entry": the directory itself is tried, so its mkdir gives the reason (a file in the way);
    // an ancestor is taken to exist (Deno may forbid even looking at it, and needs only the data directory).
    if (code !== 'ENOENT') {
      if (current === path) missing.unshift(current);
      break;
    }
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  return missing;
}

function statCode(path: string): string | null {
  try {
    statSync(path);
    return null;
  } catch (error) {
    return errorCode(error) ?? 'unknown';
  }
}
