// Builds the first-setup page served at / (src/setup-site.ts): a browser bundle and its static files in dist/web.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the built page lands; setup-site.ts serves it from there (a server bundle copies it beside itself). */
export const SETUP_PAGE_DIR = fileURLToPath(new URL('./dist/web/', import.meta.url));

export async function buildSetupPage() {
  mkdirSync(SETUP_PAGE_DIR, { recursive: true });
  await build({
    entryPoints: [fileURLToPath(new URL('./web/setup.ts', import.meta.url))],
    outfile: `${SETUP_PAGE_DIR}setup.js`,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    conditions: ['source'],
    sourcemap: true,
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'setup.css']) copyFileSync(new URL(`./web/${file}`, import.meta.url), `${SETUP_PAGE_DIR}${file}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildSetupPage();
