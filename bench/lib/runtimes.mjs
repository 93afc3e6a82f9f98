// The command lines that run this server on Node (the dist bundle), Bun (apps/bun) and Deno (apps/deno), from the
// workspace's own binaries, as the end-to-end suite's launchers run them (apps/server/test/harness/processes/server-process.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);
export const RUNTIMES = ['node', 'bun', 'deno'];

/**
 * `node|bun|deno ... <entry> ...args`. Deno gets the permissions of apps/deno's start script with its paths made
 * absolute, plus what an operator would add for a server kept elsewhere: `dataDir` and `configFile` readable (the data
 * directory writable), and the variables in `variables` (an upstream header's `${NAME}`) allowed.
 * @param {'node' | 'bun' | 'deno'} runtime
 * @param {{ args: string[], dataDir: string, configFile?: string, variables?: string[] }} server
 * @returns {string[]}
 */
export function runtimeCommand(runtime, { args, dataDir, configFile, variables = [] }) {
  if (runtime === 'node') return [process.execPath, join(ROOT, 'apps/server/dist/main.js'), ...args];
  if (runtime === 'bun') {
    const bun = join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe');
    return [bun, '--conditions=source', join(ROOT, 'apps/bun/src/main.ts'), ...args];
  }
  const deno = /** @type {{ runInstall(): string }} */ (require('deno/install_api.cjs')).runInstall();
  const app = join(ROOT, 'apps/deno');
  const granted = { read: [dataDir, ...(configFile ? [configFile] : [])], write: [dataDir], env: variables };
  const start = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).scripts.start.split(' ');
  const flags = start
    .filter((word) => /^--(allow|deny|ignore)-|^--no-prompt$|^--conditions=/.test(word))
    .map((flag) => {
      const [name, list] = flag.split('=');
      const kind = /^--allow-(read|write|env)$/.exec(name)?.[1];
      if (kind === undefined || list === undefined) return flag;
      // `../x` is the app's own file; `./x` the deployment's, which here is `dataDir` and `configFile`.
      const kept = list.split(',').flatMap((path) => (path.startsWith('../') ? [join(app, path)] : path.startsWith('./') ? [] : [path]));
      return `${name}=${[...kept, ...granted[kind]].join(',')}`;
    });
  return [deno, 'run', '--quiet', `--config=${join(app, 'deno.json')}`, ...flags, join(app, 'src/main.ts'), ...args];
}
