// Bundles the server and the workspace packages it uses into dist/main.js (npm dependencies stay
// external), and puts the assembly's first-setup page beside it in dist/web, where the bundle serves it from.
import { buildSetupPage, SETUP_PAGE_DIR } from '@webui/assembly/build-web';
import { build } from 'esbuild';
import { cpSync, readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(manifest.dependencies).filter((name) => !name.startsWith('@webui/'));
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
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
cpSync(SETUP_PAGE_DIR, new URL('./dist/web/', import.meta.url), { recursive: true });
if (!quiet) console.error(`built apps/server/dist/main.js and dist/web in ${Math.round(performance.now() - started)} ms`);
