import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The token configuration file, data/webui.json, as a script or operator would read it. */
export interface WebuiFile {
  access_token: string;
  token_source?: string;
  first_setup_completed?: boolean;
  [field: string]: unknown;
}

export function webuiFilePath(dataDir: string): string {
  return join(dataDir, 'webui.json');
}

export function readWebuiFile(dataDir: string): WebuiFile {
  return JSON.parse(readFileSync(webuiFilePath(dataDir), 'utf8')) as WebuiFile;
}

/** Permission bits of a path, e.g. 0o600. */
export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/**
 * The data directory's files, without the Node server's control socket (webui.sock, which Bun and
 * Deno do not open) and the audit trail (audit.log and its rotations, written by its own rules):
 * what a test checks for leftover temp files.
 */
export function dataDirFiles(dataDir: string): string[] {
  return readdirSync(dataDir)
    .filter((name) => name !== 'webui.sock' && !/^audit\.log(\.\d+)?$/.test(name))
    .sort();
}
