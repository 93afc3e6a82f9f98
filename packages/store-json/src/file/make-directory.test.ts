import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDirectory } from './make-directory.js';

describe('makeDirectory', () => {
  const dirs: string[] = [];
  const scratch = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'webui-mkdir-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('makes every missing directory with the mode, and is content with one that exists', () => {
    const target = join(scratch(), 'a', 'b', 'c');
    makeDirectory(target, 0o700);
    expect(statSync(target).isDirectory()).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o700);
    expect(() => makeDirectory(target, 0o700)).not.toThrow();
  });

  it('a file in the way is an error naming it', () => {
    const file = join(scratch(), 'file');
    writeFileSync(file, '');
    expect(() => makeDirectory(join(file, 'below'), 0o700)).toThrow(/ENOTDIR/);
  });

  // Node's own recursive mkdir never returns here (it retries the ENOENT for ever).
  it.skipIf(!existsSync('/proc/self'))(
    'a directory that cannot be made under one that exists (/proc/self/webui) throws ENOENT at once',
    () => {
      expect(() => makeDirectory('/proc/self/webui', 0o700)).toThrow(/ENOENT.*\/proc\/self\/webui/);
    },
  );
});
