#!/usr/bin/env node
// `npm run docs`: writes the generated references under docs/reference/ (the configuration from the settings schemas, the HTTP
// API from /openapi.json) by running their check, packages/assembly/test/reference-docs.test.ts, in write mode. `npm test`
// runs the same file in check mode and fails while a generated file is out of date.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const vitest = fileURLToPath(new URL('../../node_modules/.bin/vitest', import.meta.url));
const run = spawnSync(vitest, ['run', 'packages/assembly/test/reference-docs.test.ts', '--project', 'node', '--reporter', 'dot'], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, WEBUI_WRITE_DOCS: '1' },
});
if (run.status === 0) console.log('docs/reference/configuration.md and docs/reference/http-api.md written');
process.exit(run.status ?? 1);
