// Bundles the server, the workspace packages and their npm dependencies into dist/main.js, and puts the
// assembly's first-setup page beside it in dist/web, where the bundle serves it from.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// One file to load: a CLI command or a server start spent half its CPU resolving and lexing the CommonJS
// dependencies one by one. ioredis stays outside, loaded only by a server that uses Redis (store-redis imports it
// when it connects); swagger-ui-dist's files are read from its package directory.
const external = ['ioredis', 'swagger-ui-dist'];
// The CommonJS code in an ES module bundle asks for `require` (node builtins); this gives it Node's.
const requireShim =
  "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);";
const quiet = process.argv.includes('--quiet');
const force = process.argv.includes('--force');

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// --outdir=DIR builds elsewhere (a test does, so as not to rewrite the bundle other tests run).
const OUT_DIR =
  process.argv.find((arg) => arg.startsWith('--outdir='))?.slice('--outdir='.length) ?? fileURLToPath(new URL('./dist', import.meta.url));
const OUTPUTS = ['main.js', 'web/index.html', 'web/setup.js'].map((file) => join(OUT_DIR, file));
// Written after a build: the digest of what it was built from. A start with nothing changed skips the build (about a second).
const STAMP = join(OUT_DIR, '.built-from');
const OUT_LABEL = relative(ROOT, OUT_DIR).startsWith('..') ? OUT_DIR : relative(ROOT, OUT_DIR);

/**
 * What the bundle and the setup page are built from: every source of the workspace packages and of this app (tests left out),
 * the manifests, the lockfile, the install stamp (the dependencies as installed) and the build scripts. Hashed by content, so a
 * checkout that only touches files does not rebuild, and a new or removed file does.
 */
function sourcesDigest() {
  const hash = createHash('sha256');
  const add = (path) =>
    hash
      .update(`${relative(ROOT, path)}\0`)
      .update(readFileSync(path))
      .update('\0');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(path);
      } else if (!entry.name.endsWith('.test.ts')) add(path);
    }
  };
  for (const file of [
    'pnpm-lock.yaml',
    'package.json',
    'node_modules/.bootstrap-installed',
    'apps/server/build.mjs',
    'apps/server/package.json',
  ])
    if (existsSync(join(ROOT, file))) add(join(ROOT, file));
  walk(join(ROOT, 'apps/server/src'));
  for (const name of readdirSync(join(ROOT, 'packages')).sort()) {
    const dir = join(ROOT, 'packages', name);
    for (const file of ['package.json', 'build-web.mjs']) if (existsSync(join(dir, file))) add(join(dir, file));
    for (const sources of ['src', 'web']) if (existsSync(join(dir, sources))) walk(join(dir, sources));
  }
  return hash.digest('hex');
}

const started = performance.now();
const digest = sourcesDigest();
const upToDate = !force && OUTPUTS.every((output) => existsSync(output)) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === digest;
if (upToDate) {
  if (!quiet) console.error(`${OUT_LABEL} is up to date (nothing it is built from changed; --force rebuilds)`);
  process.exit(0);
}

// Loaded only now: a start with nothing to build does not pay for them.
const { buildSetupPage, SETUP_PAGE_DIR } = await import('@webui/assembly/build-web');
const { build } = await import('esbuild');
await buildSetupPage();
await build({
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: join(OUT_DIR, 'main.js'),
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
cpSync(SETUP_PAGE_DIR, join(OUT_DIR, 'web'), { recursive: true });
writeFileSync(STAMP, digest);
if (!quiet) console.error(`built ${OUT_LABEL}/main.js and web/ in ${Math.round(performance.now() - started)} ms`);
