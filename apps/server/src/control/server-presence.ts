import { LOCK_FILE_NAME, processIsAlive } from '@webui/store-json';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The pid of the server holding the data directory's instance lock, or null when none runs there:
 * tells "stopped" from "running but unreachable" when the control socket does not answer.
 */
export function runningServerPid(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, LOCK_FILE_NAME), 'utf8');
  } catch {
    return null;
  }
  if (!/^\d+\s*$/.test(text)) return null;
  const pid = Number.parseInt(text, 10);
  // A lock whose process is gone was left by a killed server: nobody runs there.
  return pid > 0 && pid !== process.pid && processIsAlive(pid) ? pid : null;
}
