// Builds the first-setup page served at / (src/setup-site.ts): a browser bundle and its static files in dist/web.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the built page lands; setup-site.ts serves it from there (a server bundle copies it beside itself). */
export const SETUP_PAGE_DIR = fileURLToPath(new URL('./dist/web/', import.meta.url));

/** Each file is written aside and renamed into place: a server may be serving the previous build right now. */
function replaceFile(path, contents) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

export async function buildSetupPage() {
  mkdirSync(SETUP_PAGE_DIR, { recursive: true });
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('./web/setup.ts', import.meta.url))],
    outfile: `${SETUP_PAGE_DIR}setup.js`,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    conditions: ['source'],
    sourcemap: true,
    logLevel: 'warning',
    write: false,
  });
  for (const file of bundled.outputFiles) replaceFile(file.path, file.contents);
  for (const file of ['index.html', 'setup.css'])
    replaceFile(`${SETUP_PAGE_DIR}${file}`, readFileSync(new URL(`./web/${file}`, import.meta.url)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildSetupPage();
