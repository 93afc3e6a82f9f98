import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

// Workspace packages resolve from apps/server, as the server bundle's do; so do relative imports (`./src/...`).
const SERVER_APP = fileURLToPath(new URL('../../..', import.meta.url));
// Bundled CommonJS dependencies (undici, ws) ask for `require`; an ES module has none of its own (as in apps/server/build.mjs).
const REQUIRE_SHIM =
  "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);";

/**
 * Bundles `contents` (ESM JavaScript importing workspace packages from their sources, or this app's sources by a path
 * relative to apps/server) into `outfile`, for a child process to run.
 */
export async function bundleChildScript(contents: string, outfile: string): Promise<void> {
  await build({
    stdin: { contents, resolveDir: SERVER_APP, loader: 'js' },
    bundle: true,
    conditions: ['source'],
    platform: 'node',
    format: 'esm',
    banner: { js: REQUIRE_SHIM },
    outfile,
    logLevel: 'silent',
  });
}
