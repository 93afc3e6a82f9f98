import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupServers, makeTempDir } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

const BUILD = fileURLToPath(new URL('../../build.mjs', import.meta.url));
const SOURCES = fileURLToPath(new URL('../../src/', import.meta.url));

/** apps/server/build.mjs into `outDir` (never the dist/ the other tests run), with what it said. */
function build(outDir: string): string {
  const run = spawnSync(process.execPath, [BUILD, `--outdir=${outDir}`], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stderr;
}

describe('apps/server/build.mjs (run by npm start)', () => {
  it('skips the build when nothing it is built from changed, and builds again when a source changes or an output is missing', () => {
    const outDir = makeTempDir('webui-build-');
    expect(build(outDir)).toMatch(/^built .*main\.js and web\/ in \d+ ms\n$/);
    expect(build(outDir)).toMatch(/is up to date/);
    rmSync(join(outDir, 'web'), { recursive: true });
    expect(build(outDir)).toMatch(/^built /);

    // A file added under apps/server/src, then removed again: each state is a change.
    const probe = join(SOURCES, `.build-probe-${process.pid}`);
    try {
      writeFileSync(probe, 'changed');
      expect(build(outDir)).toMatch(/^built /);
    } finally {
      rmSync(probe, { force: true });
    }
    expect(build(outDir)).toMatch(/^built /);
    expect(build(outDir)).toMatch(/is up to date/);
  });
});
