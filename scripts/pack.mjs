#!/usr/bin/env node
// `npm run pack [-- --out DIR]`: installs the workspace if needed (scripts/bootstrap.mjs), builds every package, and writes
// each as the tarball it would be published as to packs/ (or DIR): `pnpm pack`, which rewrites the workspace:* ranges to
// versions (an `npm pack` tarball keeps them, and npm cannot install it). Ends with the line that installs them in a project.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The published packages, in dependency order (the order `build:packages` builds them in). */
export const PACKAGES = ['core', 'store-json', 'store-redis', 'http-hono', 'gateway', 'client', 'assembly'];
/** What a bot adds beside the tarballs: the packages' peer dependencies, so the bot's copies are the ones used. */
export const PEER_DEPENDENCIES = ['hono', 'valibot'];

/** Builds and packs every package into `destination` (emptied of tarballs first); returns the tarballs' paths in PACKAGES' order. */
export function packPackages(destination, { quiet = false } = {}) {
  const stdio = quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit';
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bootstrap.mjs')], { cwd: ROOT, stdio });
  const pnpm = join(ROOT, 'node_modules', '.bin', 'pnpm');
  execFileSync(pnpm, ['-r', '--filter', './packages/*', 'run', 'build'], { cwd: ROOT, stdio });
  mkdirSync(destination, { recursive: true });
  for (const file of readdirSync(destination)) if (file.endsWith('.tgz')) rmSync(join(destination, file));
  return PACKAGES.map((dir) => {
    const packed = execFileSync(pnpm, ['pack', '--json', '--pack-destination', destination], {
      cwd: join(ROOT, 'packages', dir),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'],
    });
    return JSON.parse(packed).filename;
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outFlag = process.argv.find((arg) => arg.startsWith('--out='));
  const outIndex = process.argv.indexOf('--out');
  const out = resolve(outFlag?.slice('--out='.length) ?? (outIndex > 0 ? process.argv[outIndex + 1] : undefined) ?? join(ROOT, 'packs'));
  const tarballs = packPackages(out);
  const shown = relative(process.cwd(), out) || '.';
  console.log(`\npacked ${tarballs.length} packages into ${shown}/. In your project (with "type": "module" in its package.json):`);
  console.log(`  npm install ${resolve(out)}/*.tgz ${PEER_DEPENDENCIES.join(' ')}`);
}
