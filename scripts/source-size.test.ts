import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A source file holds one concept a reader can take in at once (issue 43): at most 300 lines. One that grows past it
// is split along a real seam, one concept per file named after it, never by moving lines to a file named "utils".
const MAX_LINES = 300;
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The non-test TypeScript under packages/*\/src and apps/*\/src, as paths from the repository's root. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const src = join(ROOT, group, entry.name, 'src');
      try {
        walk(src);
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
      }
    }
  }
  return files.map((path) => relative(ROOT, path).split(sep).join('/')).sort();
}

/** Lines as `wc -l` counts them: a last line without its newline still counts. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe(`source files stay under ${MAX_LINES} lines`, () => {
  const files = sourceFiles();

  it('finds the sources of every package and app', () => {
    expect(files).toContain('packages/http-hono/src/features/channel/hub/ws-hub.ts');
    expect(files).toContain('packages/core/src/index.ts');
    expect(files).toContain('apps/server/src/main.ts');
    expect(files.some((file) => file.endsWith('.test.ts') || file.includes('/dist/'))).toBe(false);
  });

  it('counts lines as wc -l does', () => {
    expect([lineCount(''), lineCount('a\n'), lineCount('a\nb'), lineCount('a\nb\n')]).toEqual([0, 1, 2, 2]);
  });

  it(`no source file is longer than ${MAX_LINES} lines`, () => {
    const over = files
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over, `split these along a real seam, one concept per file`).toEqual([]);
  });
});
