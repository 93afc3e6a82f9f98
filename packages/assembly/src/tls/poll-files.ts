import { stat } from 'node:fs/promises';

export interface FilePoll {
  stop(): void;
}

/**
 * Calls `changed` when any of `paths` changes (modified, replaced, removed or made), polled every `intervalMs`: renewals
 * replace files by renames and symlink swaps that file events miss across runtimes. A change is reported once it has settled
 * (the same over two polls), so a pair replaced one file after the other is read whole.
 */
export function pollFiles(paths: readonly string[], intervalMs: number, changed: () => Promise<void> | void): FilePoll {
  let reported: string | undefined;
  let previous: string | undefined;
  let busy = false;
  let stopped = false;
  const poll = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      const now = (await Promise.all(paths.map(signatureOf))).join('|');
      if (reported === undefined) reported = now;
      else if (now !== reported && now === previous) {
        reported = now;
        await changed();
      }
      previous = now;
    } finally {
      busy = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), intervalMs);
  // Node and Bun hand out timer objects that can be unref'd; the poll must never keep a process alive.
  (timer as { unref?: () => void }).unref?.();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

// stat follows symlinks: certbot's live/ links to the newest archive file.
async function signatureOf(path: string): Promise<string> {
  try {
    const info = await stat(path);
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
