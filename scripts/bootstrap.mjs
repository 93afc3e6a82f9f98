#!/usr/bin/env node
// Installs the workspace with a pinned pnpm fetched from the npm registry, so a machine with only Node and npm can run everything.
// With --for-tests it also installs the system packages the end-to-end tests drive (added by the issues that need them).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PNPM = 'pnpm@10.34.8';
const forTests = process.argv.includes('--for-tests');

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, npm_config_yes: 'true' } });
  if (result.status !== 0) {
    console.error(`bootstrap: '${command} ${args.join(' ')}' failed with exit code ${result.status}`);
    process.exit(result.status ?? 1);
  }
}

/** What an install depends on: the lockfile, the workspace file and every package.json of the workspace. */
function installInputs() {
  const manifests = ['packages', 'apps', 'examples'].flatMap((dir) =>
    existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name, 'package.json')) : [],
  );
  // The bench is one package of its own (its peers' proxies are its dev dependencies).
  manifests.push(join('bench', 'package.json'));
  const hash = createHash('sha256').update(PNPM);
  for (const file of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'package.json', ...manifests.sort()]) {
    if (existsSync(file)) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

// Written after a successful install: when nothing it depends on changed since, the install is skipped (a second or more saved per run).
const STAMP = 'node_modules/.bootstrap-installed';
const inputs = installInputs();
const installed = existsSync('node_modules/.modules.yaml') && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === inputs;
if (!installed) {
  const lockfile = existsSync('pnpm-lock.yaml');
  run('npx', ['--yes', PNPM, 'install', ...(lockfile ? ['--frozen-lockfile'] : []), '--prefer-offline', '--reporter=append-only']);
  writeFileSync(STAMP, inputs);
}

if (forTests) {
  const { ensureSystemPackages } = await import('./system-packages.mjs');
  ensureSystemPackages();
}
