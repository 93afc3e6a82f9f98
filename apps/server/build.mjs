// Bundles the server and the workspace packages it uses into dist/main.js; npm dependencies stay external.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';

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
// The first-setup page served at / (src/setup-site.ts): a browser bundle and its static files in dist/web.
const webDir = new URL('./dist/web/', import.meta.url);
mkdirSync(webDir, { recursive: true });
await build({
  entryPoints: [new URL('./web/setup.ts', import.meta.url).pathname],
  outfile: new URL('./setup.js', webDir).pathname,
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: 'es2020',
  conditions: ['source'],
  sourcemap: true,
  logLevel: 'warning',
});
for (const file of ['index.html', 'setup.css']) copyFileSync(new URL(`./web/${file}`, import.meta.url), new URL(file, webDir));
if (!quiet) console.error(`built apps/server/dist/main.js and dist/web in ${Math.round(performance.now() - started)} ms`);
