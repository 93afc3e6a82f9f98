import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

// V8's flags are the whole process's: the heap is measured in a Node process of its own, running this module as compiled JS.
const dir = mkdtempSync(join(tmpdir(), 'tight-heap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIMIT = 8 * 1024 * 1024;

/**
 * Runs `setup` (a line of JS using the module's exports) in a fresh Node, then a load that keeps about 3 MB of young objects
 * alive at once (as requests waiting on Redis do), and reports the young generation's size before, after 200 rounds of it,
 * and after 200 more.
 */
function youngGenerationUnderLoad(setup: string): { before: number; grown: number; after: number } {
  const source = readFileSync(new URL('./tight-heap.ts', import.meta.url), 'utf8');
  const compiled = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  writeFileSync(join(dir, 'tight-heap.mjs'), compiled.outputText);
  const script = `
import * as heap from './tight-heap.mjs';
${setup};
const before = heap.youngGenerationBytes();
const alive = new Array(60_000);
let next = 0;
const round = () => new Promise((resolve) => setImmediate(() => {
  for (let i = 0; i < 20_000; i++) alive[next++ % alive.length] = { at: next, parts: [next, String(next)] };
  resolve();
}));
for (let i = 0; i < 200; i++) await round();
const grown = heap.youngGenerationBytes();
for (let i = 0; i < 200; i++) await round();
process.stdout.write(JSON.stringify({ before, grown, after: heap.youngGenerationBytes() }));
`;
  writeFileSync(join(dir, 'load.mjs'), script);
  return JSON.parse(execFileSync(process.execPath, [join(dir, 'load.mjs')], { encoding: 'utf8' })) as {
    before: number;
    grown: number;
    after: number;
  };
}

describe('the young generation under load (issue 44)', () => {
  it('grows to the limit while much survives, and no further', () => {
    const { before, grown, after } = youngGenerationUnderLoad(`heap.holdYoungGeneration(${LIMIT})`);
    expect(before).toBeLessThan(LIMIT);
    expect(grown).toBeGreaterThanOrEqual(LIMIT);
    // One doubling past the limit at most, and then it holds: the flag is set when the collection that crossed the limit is
    // reported, which on a loaded machine may come after one more collection has doubled it (a fresh clone's npm test
    // beside another saw 8 MiB, then 16).
    expect(grown).toBeLessThanOrEqual(2 * LIMIT);
    expect(after).toBeGreaterThanOrEqual(grown);
    expect(after).toBeLessThanOrEqual(2 * LIMIT);
  });

  it('keepHeapTight keeps it at its starting size: a server whose requests end in the turn they start', () => {
    const { grown, after } = youngGenerationUnderLoad('heap.keepHeapTight()');
    // Its two starting semispaces of 1 MiB (the second taken at the first minor collection), however much survives.
    expect(grown).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(after).toBe(grown);
  });

  it('a server whose requests wait lets it grow to YOUNG_GENERATION_BYTES, and no further', () => {
    const { grown, after } = youngGenerationUnderLoad('heap.keepHeapTight(); heap.growYoungGenerationForWaitingRequests()');
    expect(grown).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    expect(after).toBeLessThanOrEqual(32 * 1024 * 1024);
  });
});
