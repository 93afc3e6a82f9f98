import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configurationReference, httpApiReference, openApiDocument } from './reference-docs.js';

// Like a formatter's check: the committed file must be what its source generates now. `npm run docs` (scripts/docs/generate.mjs)
// runs this file with WEBUI_WRITE_DOCS=1, which writes the files instead.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WRITE = process.env['WEBUI_WRITE_DOCS'] === '1';

const GENERATED: Array<[file: string, render: () => Promise<string>]> = [
  ['docs/reference/configuration.md', async () => configurationReference()],
  ['docs/reference/http-api.md', async () => httpApiReference(await openApiDocument())],
];

/** The first line where two texts differ, for the failure message. */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const e = expected.split('\n');
  const line = e.findIndex((text, index) => a[index] !== text);
  const at = line === -1 ? e.length : line;
  return `line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  generated: ${e[at] ?? '(end of file)'}`;
}

describe('generated references', () => {
  it.each(GENERATED)('%s is what its source generates', async (file, render) => {
    const generated = await render();
    const path = join(ROOT, file);
    if (WRITE) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, generated);
      return;
    }
    const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (committed !== generated)
      expect.fail(`${file} is out of date with its source: run \`npm run docs\` and commit it (${firstDifference(committed, generated)})`);
  });
});
