import { errorCode } from '@webui/core/adapter';

/**
 * Whether a process with this pid exists: the writer of a temp file, the owner of a lock. Signal 0
 * asks the kernel. A runtime that may not signal at all (Deno without --allow-run, which would let
 * the server start any program) cannot tell: the process then counts as alive, so that nothing of a
 * running server is ever taken.
 */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, under another user; ESRCH: no such process; anything else: the runtime refused to look.
    return errorCode(error) !== 'ESRCH';
  }
}
