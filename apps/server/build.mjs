// Bundles the server and the workspace packages it uses into dist/main.js; npm dependencies stay external.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(manifest.dependencies).filter((name) => !name.startsWith('@webui/'));
const quiet = process.argv.includes('--quiet');

const started = performance.now();
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
if (!quiet) console.error(`built apps/server/dist/main.js in ${Math.round(performance.now() - started)} ms`);
