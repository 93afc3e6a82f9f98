#!/usr/bin/env node
// `npm run typecheck`: the four type checks (the workspace with Node's globals, the setup page with the DOM's,
// apps/bun with Bun's, apps/deno with deno check), in two lanes at once since each is one single-threaded process.
// Each check's output is printed whole when it ends; exits 1 when any failed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

// Balanced by CPU time: about 29 s + 10 s against 14 s + 14 s.
const LANES = [
  [
    [bin('tsc'), '-p', 'tsconfig.json', '--noEmit'],
    [bin('tsc'), '-p', 'packages/assembly/web/tsconfig.json', '--noEmit'],
  ],
  [
    [bin('tsc'), '-p', 'apps/bun/tsconfig.json', '--noEmit'],
    // examples/bot's Deno entry in the same run: one deno check costs its start-up once.
    [
      bin('deno'),
      'check',
      '--quiet',
      '--conditions=source',
      '--config=apps/deno/deno.json',
      'apps/deno/src/main.ts',
      'examples/bot/src/deno.ts',
    ],
  ],
];

/** Runs one check to its end; its output is held back so that two lanes' lines never interleave. */
function check([command, ...args]) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ ok: false, output: `${error.message}\n` }));
    child.on('close', (code) => {
      const name = [command.split('/').pop(), ...args.filter((arg) => !arg.startsWith('-'))].join(' ');
      process.stdout.write(
        `${output}typecheck: ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
      resolve({ ok: code === 0 });
    });
  });
}

async function lane(checks) {
  const results = [];
  for (const command of checks) results.push(await check(command));
  return results;
}

const results = (await Promise.all(LANES.map(lane))).flat();
process.exit(results.every((result) => result.ok) ? 0 : 1);
