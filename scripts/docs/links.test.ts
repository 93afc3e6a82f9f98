import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The repository stands alone: every relative link and anchor of its Markdown resolves, every docs/ path a source file
// cites exists, no source file cites a decision by a name that lives elsewhere, and no file points outside the checkout.
const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url))
  .split(sep)
  .join('/');

/** Every file of the checkout: tracked and new ones, without what git ignores (a walk when there is no git). */
function repositoryFiles(): string[] {
  try {
    const list = (extra: string[]) =>
      execFileSync('git', ['ls-files', '-z', ...extra], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 })
        .split('\0')
        .filter(Boolean);
    return [...new Set([...list([]), ...list(['--others', '--exclude-standard'])])].filter((file) => existsSync(join(ROOT, file)));
  } catch {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        if (['node_modules', 'dist', 'coverage', 'data', '.git', '.tools'].includes(entry.name)) continue;
        const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk('');
    return files;
  }
}

const FILES = repositoryFiles().sort();
const TEXT =
  /\.(?:md|ts|tsx|mts|cts|js|mjs|cjs|json|ya?ml|toml|sh|service|html|css|txt)$|(?:^|\/)(?:run|\.gitignore|\.npmrc|\.prettierignore)$/;
const TEXT_FILES = FILES.filter((file) => TEXT.test(file) && file !== 'pnpm-lock.yaml');
const SOURCE_FILES = TEXT_FILES.filter((file) => !file.endsWith('.md') && file !== THIS_FILE);

/** README.md, docs/ and the READMEs of every package, app, example, the bench and the soak. */
const MARKDOWN = FILES.filter(
  (file) =>
    file === 'README.md' ||
    (file.startsWith('docs/') && file.endsWith('.md')) ||
    /^(?:packages|apps|examples)\/[^/]+\/README\.md$/.test(file) ||
    file === 'bench/README.md' ||
    file === 'apps/server/soak/README.md',
);

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** The text of a Markdown file with fenced code blocks blanked (line numbers kept) and inline code spans emptied. */
function prose(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return line;
  });
}

/** The anchor a code host gives a heading: lower case, punctuation dropped (`_` and `-` kept), spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors of a Markdown file's headings, duplicates numbered as code hosts do (`name`, `name-1`, ...). */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  anchors = new Set();
  const seen = new Map<string, number>();
  for (const line of prose(read(file))) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** The link and image targets of a Markdown file, outside code: inline `[text](target)` and `[label]: target` definitions. */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  prose(read(file)).forEach((text, index) => {
    const line = text.replace(/`[^`]*`/g, '``');
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ line: index + 1, target: match[1] as string });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1] as string });
  });
  return links;
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Why a relative link of `file` does not resolve, or null. */
function brokenLink(file: string, target: string): string | null {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  if (pathPart.startsWith('/')) return 'an absolute path: write it relative to this file';
  const resolved = pathPart === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), pathPart);
  const inRepository = relative(ROOT, resolved);
  if (inRepository.startsWith('..')) return 'it leaves the repository';
  if (!existsSync(resolved)) return `${inRepository.split(sep).join('/')} does not exist`;
  if (anchor === null || anchor === '') return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return 'an anchor into something that is not a Markdown file';
  const targetFile = inRepository.split(sep).join('/');
  return anchorsOf(targetFile).has(anchor) ? null : `${targetFile} has no heading with the anchor #${anchor}`;
}

describe('links in the Markdown', () => {
  it('covers the README, docs/ and every package README', () => {
    expect(MARKDOWN).toContain('README.md');
    expect(MARKDOWN).toContain('docs/decisions/README.md');
    expect(MARKDOWN).toContain('packages/core/README.md');
    expect(MARKDOWN).toContain('bench/README.md');
  });

  it.each(MARKDOWN)('%s: every relative link and anchor resolves', (file) => {
    const broken = linksOf(file)
      .filter((link) => !isExternal(link.target))
      .map((link) => ({ ...link, why: brokenLink(file, link.target) }))
      .filter((link) => link.why !== null)
      .map((link) => `${file}:${link.line}: ${link.target}: ${link.why}`);
    expect(broken).toEqual([]);
  });

  it('the README links nowhere outside the repository and stays within 200 lines', () => {
    const readme = read('README.md');
    const external = linksOf('README.md').filter((link) => isExternal(link.target));
    expect(external).toEqual([]);
    expect(readme.split('\n').length).toBeLessThanOrEqual(201);
    // CI runs the README's test command verbatim.
    expect(readme).toMatch(/^npm test\b/m);
  });
});

describe('decisions', () => {
  const records = FILES.filter((file) => /^docs\/decisions\/\d{4}-[a-z0-9-]+\.md$/.test(file));

  it('are numbered one after another, each with its context, decision and consequences', () => {
    expect(records.map((file) => Number(file.slice('docs/decisions/'.length, 'docs/decisions/'.length + 4)))).toEqual(
      records.map((_, index) => index + 1),
    );
    for (const file of records) {
      const text = read(file);
      expect(text, file).toMatch(new RegExp(`^# ${file.slice('docs/decisions/'.length, 'docs/decisions/'.length + 4)}\\. `));
      for (const section of ['Context', 'Decision', 'Consequences'])
        expect(text, `${file}: ## ${section}`).toMatch(new RegExp(`^## ${section}$`, 'm'));
    }
  });

  it('are all listed in docs/decisions/README.md', () => {
    const index = read('docs/decisions/README.md');
    for (const file of records) expect(index, file).toContain(`](${file.slice('docs/decisions/'.length)})`);
  });
});

// Citations in source files are paths from the repository root: a comment cannot hold a link that works from every depth.
const CITED_DOC = /(?<![\w./-])docs\/[\w./-]*[\w-]\.md(?:\s+§(\d+))?/g;
// The names decisions had before they lived here, and citations of documents that are not in the repository.
const OLD_CITATIONS = [
  { pattern: new RegExp(['\\bDESI', 'GN\\b'].join('')), why: 'cite the record under docs/decisions/ by its path' },
  { pattern: /(?<![\w/.-])D(?:1[0-7]|[1-9])(?![\w])/, why: 'a decision by its old number: cite docs/decisions/NNNN-title.md' },
  { pattern: new RegExp(['dashboard-', 'contract\\.md'].join('')), why: 'cite docs/dashboard.md' },
  { pattern: /\(design, /, why: 'cite docs/decisions/0028-gateway-forwarding-rules.md' },
  { pattern: /\bREADME, Performance\b/, why: 'cite docs/performance.md' },
];

describe('citations in source files', () => {
  it('name files that exist, and sections that exist', () => {
    const missing: string[] = [];
    for (const file of SOURCE_FILES) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const match of line.matchAll(CITED_DOC)) {
            const path = match[0].replace(/\s+§\d+$/, '');
            if (!existsSync(join(ROOT, path))) missing.push(`${file}:${index + 1}: ${path} does not exist`);
            else if (match[1] !== undefined && !read(path).match(new RegExp(`^## ${match[1]}\\. `, 'm')))
              missing.push(`${file}:${index + 1}: ${path} has no section ${match[1]}`);
          }
        });
    }
    expect(missing).toEqual([]);
  });

  // A section cited by its heading: `"Heading" in docs/file.md` or `docs/file.md, "Heading"` (a heading may go on with a
  // qualifier in parentheses, which a citation leaves out).
  it('name sections by headings that exist', () => {
    const CITED_HEADING = [
      /"([^"]{3,80})" in ((?:docs\/)?[\w./-]*[\w-]\.md)/g,
      /(?<![\w./-])((?:docs\/)?[\w./-]*[\w-]\.md), "([^"]{3,80})"/g,
    ] as const;
    const headings = (path: string) => prose(read(path)).flatMap((line) => /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] ?? []);
    const missing: string[] = [];
    let cited = 0;
    for (const file of SOURCE_FILES) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const [pattern, order] of [
            [CITED_HEADING[0], 'heading-first'],
            [CITED_HEADING[1], 'path-first'],
          ] as const) {
            for (const match of line.matchAll(pattern)) {
              const [heading, path] = (order === 'heading-first' ? [match[1], match[2]] : [match[2], match[1]]) as [string, string];
              cited++;
              const where = `${file}:${index + 1}: "${heading}" in ${path}`;
              if (!existsSync(join(ROOT, path))) missing.push(`${where}: ${path} does not exist`);
              else if (!headings(path).some((text) => text === heading || text.startsWith(`${heading} (`)))
                missing.push(`${where}: no such heading`);
            }
          }
        });
    }
    expect(cited).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('cite decisions by their path in docs/decisions/, not by the names they had elsewhere', () => {
    const old: string[] = [];
    for (const file of SOURCE_FILES) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const { pattern, why } of OLD_CITATIONS) if (pattern.test(line)) old.push(`${file}:${index + 1}: ${why}: ${line.trim()}`);
        });
    }
    expect(old).toEqual([]);
  });
});

describe('nothing points outside the repository', () => {
  // Built from parts, so that this file does not name them itself.
  const OUTSIDE = [
    new RegExp(['\\.\\./', 'shared\\b'].join('')),
    new RegExp(['(?<![\\w.])/', 'work/'].join('')),
    new RegExp(['\\bshared/', '(?:spec|tools|DESIGN)'].join('')),
  ];

  it('no file of the repository names a path outside it', () => {
    const outside: string[] = [];
    for (const file of TEXT_FILES.filter((name) => name !== THIS_FILE)) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          if (OUTSIDE.some((pattern) => pattern.test(line))) outside.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(outside).toEqual([]);
  });
});
