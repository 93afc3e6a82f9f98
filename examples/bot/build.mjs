// Bundles the example bot for Node from the workspace's TypeScript sources (dist/node.js), with the assembly's
// first-setup page beside it in dist/web, as apps/server/build.mjs does for the server.
import { buildSetupPage, SETUP_PAGE_DIR } from '@webui/assembly/build-web';
import { build } from 'esbuild';
import { cpSync } from 'node:fs';

const external = ['ioredis', 'swagger-ui-dist'];
const requireShim =
  "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);";

await buildSetupPage();
await build({
  entryPoints: [new URL('./src/node.ts', import.meta.url).pathname],
  outfile: new URL('./dist/node.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  external: external.flatMap((name) => [name, `${name}/*`]),
  sourcemap: true,
  banner: { js: requireShim },
  logLevel: 'warning',
});
cpSync(SETUP_PAGE_DIR, new URL('./dist/web/', import.meta.url), { recursive: true });
