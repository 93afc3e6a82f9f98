import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordFile } from './record-file-read.js';

describe('readRecordFile', () => {
  const dirs: string[] = [];
  const dataDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'webui-record-read-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('reads the record of a valid file, says missing for none, and invalid (with why) for a broken one, touching nothing', async () => {
    const dir = dataDir();
    expect(await readRecordFile(join(dir, 'absent'))).toEqual({ kind: 'missing' });
    writeFileSync(
      join(dir, 'webui.json'),
      JSON.stringify({ access_token: 'Imported-Token-1!', token_source: 'configured', first_setup_completed: true }),
    );
    expect(await readRecordFile(dir)).toEqual({
      kind: 'read',
      path: join(dir, 'webui.json'),
      record: { accessToken: 'Imported-Token-1!', tokenSource: 'configured', firstSetupCompleted: true },
    });
    writeFileSync(join(dir, 'webui.json'), '{ not json');
    expect(await readRecordFile(dir)).toMatchObject({
      kind: 'invalid',
      path: join(dir, 'webui.json'),
      reason: expect.stringMatching(/not valid JSON/),
    });
    expect(readdirSync(dir)).toEqual(['webui.json']);
  });

  it('says where the JSON broke, never quoting the file: an unquoted token typed by hand stays out of the reason', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'webui.json'), '{"access_token": Secret-Tok3n!xyz}');
    const unquoted = await readRecordFile(dir);
    expect(unquoted).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/not valid JSON/) });
    expect(JSON.stringify(unquoted)).not.toMatch(/Secret|Tok3n/);
    writeFileSync(join(dir, 'webui.json'), '{\n  "access_token": "Secret-Tok3n!xyz"\n  "token_source": "configured"\n}');
    const missingComma = await readRecordFile(dir);
    expect(missingComma).toMatchObject({ kind: 'invalid', reason: 'the file is not valid JSON (line 3, column 3)' });
  });
});
