import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BUILD_SCRIPT = fileURLToPath(new URL('../build.mjs', import.meta.url));

/** Builds apps/server/dist/main.js once per run: the end-to-end tests start that bundle, never the sources. */
export default function setup(): void {
  execFileSync(process.execPath, [BUILD_SCRIPT, '--quiet'], { stdio: 'inherit' });
}
