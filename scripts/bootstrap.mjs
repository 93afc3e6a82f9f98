#!/usr/bin/env node
// Installs the workspace with a pinned pnpm fetched from the npm registry, so a machine with only Node and npm can run everything.
// With --for-tests it also installs the system packages the end-to-end tests drive (added by the issues that need them).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PNPM = 'pnpm@10.34.8';
const forTests = process.argv.includes('--for-tests');

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, npm_config_yes: 'true' } });
  if (result.status !== 0) {
    console.error(`bootstrap: '${command} ${args.join(' ')}' failed with exit code ${result.status}`);
    process.exit(result.status ?? 1);
  }
}

const lockfile = existsSync('pnpm-lock.yaml');
run('npx', ['--yes', PNPM, 'install', ...(lockfile ? ['--frozen-lockfile'] : []), '--prefer-offline', '--reporter=append-only']);

if (forTests) {
  const { ensureSystemPackages } = await import('./system-packages.mjs');
  ensureSystemPackages();
}
