// Bundles the server, the workspace packages and their npm dependencies into dist/main.js, and puts the
// assembly's first-setup page beside it in dist/web, where the bundle serves it from.
import { buildSetupPage, SETUP_PAGE_DIR } from '@webui/assembly/build-web';
import { build } from 'esbuild';
import { cpSync } from 'node:fs';

// One file to load: a CLI command or a server start spent half its CPU resolving and lexing the CommonJS
// dependencies one by one. ioredis stays outside, loaded only by a server that uses Redis (store-redis imports it
// when it connects); swagger-ui-dist's files are read from its package directory.
const external = ['ioredis', 'swagger-ui-dist'];
// The CommonJS code in an ES module bundle asks for `require` (node builtins); this gives it Node's.
const requireShim =
  "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);";
const quiet = process.argv.includes('--quiet');

const started = performance.now();
await buildSetupPage();
await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: new URL('./dist/main.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  external: external.flatMap((name) => [name, `${name}/*`]),
  sourcemap: true,
  banner: { js: `#!/usr/bin/env node\n${requireShim}` },
  logLevel: 'warning',
});
cpSync(SETUP_PAGE_DIR, new URL('./dist/web/', import.meta.url), { recursive: true });
if (!quiet) console.error(`built apps/server/dist/main.js and dist/web in ${Math.round(performance.now() - started)} ms`);
