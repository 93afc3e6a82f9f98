#!/usr/bin/env node
// `npm run test:fuzz`: the property tests with a fresh random seed (or WEBUI_FUZZ_SEED) and many more
// runs (WEBUI_FUZZ_RUNS, per property), printed first so that any failure can be replayed. Not part of `npm test`,
// whose properties run on fixed seeds. Extra arguments go to vitest (a test file, -t <name>).
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const PROPERTY_TESTS = [
  'apps/server/test/faults/fuzz-http.test.ts',
  'apps/server/test/faults/fuzz-websocket.test.ts',
  'apps/server/test/faults/fuzz-wire.test.ts',
];
const DEFAULT_RUNS = 1_000;

const seed = process.env.WEBUI_FUZZ_SEED || String(randomInt(-(2 ** 31), 2 ** 31));
const runs = process.env.WEBUI_FUZZ_RUNS || String(DEFAULT_RUNS);
const path = process.env.WEBUI_FUZZ_PATH ?? '';
const files = process.argv.slice(2);

console.log(`test:fuzz: seed ${seed}, ${runs} runs per property${path ? `, replaying path ${path}` : ''}`);
console.log(`test:fuzz: run again with WEBUI_FUZZ_SEED=${seed} WEBUI_FUZZ_RUNS=${runs} npm run test:fuzz`);

// The workspace's own vitest, so that the script also runs outside npm (node scripts/fuzz.mjs).
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const result = spawnSync(process.execPath, [VITEST, 'run', '--project', 'node', ...(files.length > 0 ? files : PROPERTY_TESTS)], {
  stdio: 'inherit',
  env: { ...process.env, WEBUI_FUZZ_SEED: seed, WEBUI_FUZZ_RUNS: runs, WEBUI_FUZZ_PATH: path },
});
if (result.error) console.error(`test:fuzz: cannot run vitest: ${result.error.message}`);
process.exit(result.status ?? 1);
