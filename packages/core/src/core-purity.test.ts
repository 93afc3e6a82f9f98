import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The core runs on any JS runtime (docs/decisions/0018-layers-point-inward.md): no node:*, no packages, no ambient time or randomness.
const SOURCE_ROOT = dirname(fileURLToPath(import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = sourceFiles(SOURCE_ROOT).map((path) => ({
  name: relative(SOURCE_ROOT, path).split(sep).join('/'),
  text: readFileSync(path, 'utf8'),
}));

/** Every module specifier in static imports, re-exports, side-effect imports and dynamic import(). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\1/g;
  for (const match of text.matchAll(pattern)) found.push(match[2] as string);
  return found;
}

function offendingLines(text: string, pattern: RegExp): string[] {
  return text.split('\n').filter((line) => pattern.test(line));
}

describe('core purity', () => {
  it('finds the core sources', () => {
    const names = files.map((file) => file.name);
    expect(names).toContain('domain/tokens/token-service.ts');
    expect(names).toContain('testing/fake-clock.ts');
    expect(names.some((name) => name.endsWith('.test.ts'))).toBe(false);
  });

  it('the specifier scanner sees every import form', () => {
    const sample =
      "import a from 'x';\nimport { b } from \"./y.js\";\nexport * from 'node:fs';\nimport 'side';\nconst c = import('dyn');\nimport " +
      "type { D } from './d.js';";
    expect(specifiers(sample)).toEqual(['x', './y.js', 'node:fs', 'side', 'dyn', './d.js']);
  });

  it.each(files)('$name imports only relative modules (no node:*, no packages)', ({ text }) => {
    const outside = specifiers(text).filter((specifier) => !specifier.startsWith('.'));
    expect(outside).toEqual([]);
  });

  it.each(files)('$name uses no ambient process, require or decorators', ({ text }) => {
    expect(offendingLines(text, /\bprocess\./)).toEqual([]);
    expect(offendingLines(text, /\brequire\(/)).toEqual([]);
    expect(offendingLines(text, /^\s*@[A-Za-z_$]/)).toEqual([]);
  });

  it.each(files)('$name takes randomness from the RandomSource port', ({ text }) => {
    expect(offendingLines(text, /Math\.random\(/)).toEqual([]);
  });

  it.each(files.filter((file) => !file.name.startsWith('testing/')))('$name takes time from the Clock port', ({ text }) => {
    // Reading the wall clock is what is banned; formatting a time the Clock gave (new Date(ms)) is not.
    expect(offendingLines(text, /Date\.now\(|new Date\(\)/)).toEqual([]);
  });
});
