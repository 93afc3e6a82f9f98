import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

// Workspace packages resolve from apps/server, as the server bundle's do.
const SERVER_APP = fileURLToPath(new URL('../..', import.meta.url));

/** Bundles `contents` (ESM JavaScript importing workspace packages from their sources) into `outfile`, for a child process to run. */
export async function bundleChildScript(contents: string, outfile: string): Promise<void> {
  await build({
    stdin: { contents, resolveDir: SERVER_APP, loader: 'js' },
    bundle: true,
    conditions: ['source'],
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'silent',
  });
}
