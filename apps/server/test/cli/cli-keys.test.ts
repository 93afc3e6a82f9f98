import { KEY_REFUSAL_DETAIL, schemas } from '@webui/http-hono';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebui, type CliOptions } from '../harness/processes/cli-process.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, makeTempDir, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { modeOf, readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

// `webui keys` is apps/server's CLI (Node); not part of the *.e2e suite shared with Bun and Deno.
afterAll(cleanupServers);

const KEY = /^wk_[A-Za-z0-9_-]{43}$/;
const LOCAL_TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;
const DAY_MS = 86_400_000;

type KeyJson = v.InferOutput<typeof schemas.ApiKeyBody>;

/** A data directory with a configured token, as after a first setup; no server runs on it. */
async function stoppedDataDir(): Promise<string> {
  const cwd = makeTempDir();
  expect((await runWebui(cwd, ['token', 'set'], { input: STRONG_TOKEN })).code).toBe(0);
  return cwd;
}

async function listedKeys(cwd: string, options: CliOptions = {}): Promise<KeyJson[]> {
  const run = await runWebui(cwd, ['keys', 'list', '--json'], options);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  const printed: unknown = JSON.parse(run.stdout);
  return v.parse(schemas.KeyListResponse, printed).keys;
}

/** The table's rows by name: cells are separated by two or more spaces. */
function tableRows(stdout: string): Map<string, string[]> {
  const [heading, ...rows] = stdout.trimEnd().split('\n');
  expect(heading?.split(/ {2,}/)).toEqual(['NAME', 'SCOPE', 'CREATED', 'EXPIRES', 'LAST USED']);
  return new Map(rows.map((row) => row.split(/ {2,}/)).map((cells) => [cells[0] ?? '', cells.slice(1)]));
}

/** webui.json keeps each key as its SHA-256 only. */
function expectOnlyHashesKept(dataDir: string, keys: readonly string[]): void {
  const text = readFileSync(webuiFilePath(dataDir), 'utf8');
  for (const key of keys) expect(text).not.toContain(key);
  const kept = (readWebuiFile(dataDir)['api_keys'] as Array<Record<string, unknown>>).map((entry) => entry['key_sha256']);
  expect(kept).toEqual(keys.map((key) => createHash('sha256').update(key).digest('hex')));
}

describe('webui keys with no server running', () => {
  it(
    'keys create prints the key alone on stdout, once; stderr says so with its scope and expiry; webui.json keeps ' + 'only its hash',
    async () => {
      const cwd = await stoppedDataDir();
      const run = await runWebui(cwd, ['keys', 'create', 'backup-script']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^wk_[A-Za-z0-9_-]{43}\n$/);
      expect(run.stderr).toMatch(
        /^API key backup-script created: scope read, never expires\. It is shown only now; send it as Authorization: Bearer <key>\n$/,
      );
      const key = run.stdout.trim();
      expectOnlyHashesKept(join(cwd, 'data'), [key]);
      expect(modeOf(webuiFilePath(join(cwd, 'data')))).toBe(0o600);

      const listed = await runWebui(cwd, ['keys', 'list']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).not.toContain(key);
      const [scope, created, expires, lastUsed] = tableRows(listed.stdout).get('backup-script') ?? [];
      expect([scope, expires, lastUsed]).toEqual(['read', 'never', 'never']);
      expect(created).toMatch(new RegExp(`^${LOCAL_TIME}$`));
    },
  );

  it('--scope admin --expires 90d: listed with that scope and an expiry 90 days after creation; --json never holds a key', async () => {
    const cwd = await stoppedDataDir();
    const run = await runWebui(cwd, ['keys', 'create', 'deploy', '--scope', 'admin', '--expires=90d']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^API key deploy created: scope admin, expires ${LOCAL_TIME}\\. It is shown only now`));
    const [entry] = await listedKeys(cwd);
    expect(entry).toMatchObject({ name: 'deploy', scope: 'admin', last_used_at: null, expired: false });
    expect(Date.parse(entry?.expires_at ?? '') - Date.parse(entry?.created_at ?? '')).toBe(90 * DAY_MS);
    expect((await runWebui(cwd, ['keys', 'list', '--json'])).stdout).not.toContain(run.stdout.trim());
  });

  it('a key past its expiry is listed as expired', async () => {
    const cwd = await stoppedDataDir();
    expect((await runWebui(cwd, ['keys', 'create', 'short', '--expires', '1s'])).code).toBe(0);
    // Listed by a CLI whose clock runs 1.1 s ahead, as if that long had passed.
    const later = { clockAheadMs: 1_100 };
    expect(await listedKeys(cwd, later)).toEqual([expect.objectContaining({ name: 'short', expired: true })]);
    const expires = tableRows((await runWebui(cwd, ['keys', 'list'], later)).stdout).get('short')?.[2];
    expect(expires).toMatch(new RegExp(`^expired \\(${LOCAL_TIME}\\)$`));
  });

  it.each([
    ['a bad name', ['keys', 'create', 'two words'], KEY_REFUSAL_DETAIL.invalid_key_name],
    ['a bad expiry', ['keys', 'create', 'ci', '--expires', '90 days'], KEY_REFUSAL_DETAIL.invalid_expiry],
    ['a name taken', ['keys', 'create', 'taken'], KEY_REFUSAL_DETAIL.key_name_taken],
  ])('keys create refuses %s: exit 1 with the sentence, nothing on stdout, nothing written', async (_name, args, detail) => {
    const cwd = await stoppedDataDir();
    expect((await runWebui(cwd, ['keys', 'create', 'taken'])).code).toBe(0);
    const before = readFileSync(webuiFilePath(join(cwd, 'data')), 'utf8');
    const run = await runWebui(cwd, args);
    expect(run).toEqual({ code: 1, stdout: '', stderr: `webui keys create: ${detail}\n` });
    expect(readFileSync(webuiFilePath(join(cwd, 'data')), 'utf8')).toBe(before);
  });

  it('keys revoke NAME revokes that key, a second time exits 1; revoke --all prints each name', async () => {
    const cwd = await stoppedDataDir();
    for (const name of ['one', 'two', 'three']) expect((await runWebui(cwd, ['keys', 'create', name])).code).toBe(0);
    expect(await runWebui(cwd, ['keys', 'revoke', 'two'])).toEqual({ code: 0, stdout: 'revoked two\n', stderr: '' });
    expect(await runWebui(cwd, ['keys', 'revoke', 'two'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'webui keys revoke: No API key is named "two".\n',
    });
    expect((await listedKeys(cwd)).map((key) => key.name)).toEqual(['one', 'three']);
    expect(await runWebui(cwd, ['keys', 'revoke', '--all'])).toEqual({ code: 0, stdout: 'revoked one\nrevoked three\n', stderr: '' });
    expect(await runWebui(cwd, ['keys', 'revoke', '--all'])).toEqual({ code: 0, stdout: '', stderr: 'no API key to revoke\n' });
    expect(await runWebui(cwd, ['keys', 'list'])).toEqual({
      code: 0,
      stdout: 'no API keys; create one with `webui keys create NAME`\n',
      stderr: '',
    });
    expect(readWebuiFile(join(cwd, 'data'))['api_keys']).toEqual([]);
  });

  it('on a data directory no server ever ran on: list and revoke say there is no data yet (exit 1) and write nothing', async () => {
    const cwd = makeTempDir();
    for (const args of [
      ['keys', 'list'],
      ['keys', 'revoke', 'x'],
      ['keys', 'revoke', '--all'],
    ]) {
      const run = await runWebui(cwd, args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toMatch(/^webui keys (list|revoke): no data yet in .*: start the server once first\n$/);
    }
    expect(() => readWebuiFile(join(cwd, 'data'))).toThrow();
  });

  it.each([
    [['keys']],
    [['keys', 'frob']],
    [['keys', 'create']],
    [['keys', 'create', 'a', 'b']],
    [['keys', 'create', 'a', '--scope', 'root']],
    [['keys', 'create', 'a', '--scope']],
    [['keys', 'create', 'a', '--nope']],
    [['keys', 'list', 'extra']],
    [['keys', 'list', '--nope']],
    [['keys', 'revoke']],
    [['keys', 'revoke', 'a', 'b']],
    [['keys', 'revoke', '--all', 'a']],
  ])('usage error %j exits 2 with one line on stderr', async (args) => {
    const run = await runWebui(makeTempDir(), args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^webui keys[^\n]*\n$/);
  });

  it('help lists the keys commands', async () => {
    const run = await runWebui(makeTempDir(), ['help']);
    expect(run.stdout).toMatch(/keys create NAME \[--scope read\|admin\] \[--expires 90d\]/);
    expect(run.stdout).toMatch(/keys list \[--json\]/);
    expect(run.stdout).toMatch(/keys revoke NAME\|--all/);
  });
});

describe('webui keys against a running server', () => {
  let server: ServerProcess;
  const keys = (...args: string[]) => runWebui(server.cwd, ['keys', ...args]);

  beforeAll(async () => {
    server = await startServer();
  });

  it(
    'keys create goes through the server: listed at once with its scope and expiry, only its hash in webui.json, logged by the server ' +
      'without the key',
    async () => {
      const created = await keys('create', 'nightly', '--scope', 'admin', '--expires', '7d');
      expect(created.code).toBe(0);
      const key = created.stdout.trim();
      expect(key).toMatch(KEY);
      expect(created.stderr).toMatch(/^API key nightly created: scope admin, expires /);

      const [entry] = await listedKeys(server.cwd);
      expect(entry).toMatchObject({ name: 'nightly', scope: 'admin', expired: false, last_used_at: null });
      expect(Date.parse(entry?.expires_at ?? '') - Date.parse(entry?.created_at ?? '')).toBe(7 * DAY_MS);
      expectOnlyHashesKept(server.dataDir, [key]);

      const logged = await server.waitForLog((line) => line.msg === 'API key created');
      expect(logged).toMatchObject({ module: 'control', key: 'nightly', scope: 'admin', via: 'cli' });
      // Written by the server itself, not picked up as a hand edit of the file.
      expect(server.logs().some((line) => line.msg === 'webui.json was edited by hand; the change is in force')).toBe(false);
      expect(server.stdout()).not.toContain(key);
    },
  );

  it('keys revoke takes effect at once: the next list no longer shows it, webui.json no longer keeps it', async () => {
    expect((await keys('create', 'temporary-job')).code).toBe(0);
    expect((await listedKeys(server.cwd)).map((key) => key.name)).toEqual(['nightly', 'temporary-job']);
    expect(await keys('revoke', 'temporary-job')).toEqual({ code: 0, stdout: 'revoked temporary-job\n', stderr: '' });
    expect((await listedKeys(server.cwd)).map((key) => key.name)).toEqual(['nightly']);
    expect((readWebuiFile(server.dataDir)['api_keys'] as Array<{ name: string }>).map((key) => key.name)).toEqual(['nightly']);
    expect(await keys('revoke', 'temporary-job')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'webui keys revoke: No API key is named "temporary-job".\n',
    });
  });

  it('a key made by the CLI is a bearer at once, and refused at once after keys revoke', async () => {
    const created = await keys('create', 'probe');
    const bearer = { headers: { authorization: `Bearer ${created.stdout.trim()}` }, cookie: null };
    const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.9' });
    const listed = await client.get('/keys', bearer);
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ keys: expect.arrayContaining([expect.objectContaining({ name: 'probe', scope: 'read' })]) });
    expect((await keys('revoke', 'probe')).code).toBe(0);
    const refused = await client.get('/keys', bearer);
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ code: 'invalid_credentials' });
  });

  it('refusals come back from the server in the same words', async () => {
    expect(await keys('create', 'nightly')).toEqual({
      code: 1,
      stdout: '',
      stderr: `webui keys create: ${KEY_REFUSAL_DETAIL.key_name_taken}\n`,
    });
    expect(await keys('create', 'x', '--expires', 'forever')).toEqual({
      code: 1,
      stdout: '',
      stderr: `webui keys create: ${KEY_REFUSAL_DETAIL.invalid_expiry}\n`,
    });
  });
});

describe('a running server the CLI cannot reach', () => {
  it('its socket file removed: keys create, list and revoke exit 1 saying so, and webui.json is left as it was', async () => {
    const server = await startServer();
    expect((await runWebui(server.cwd, ['keys', 'create', 'kept'])).code).toBe(0);
    rmSync(join(server.dataDir, 'webui.sock'));
    const before = readFileSync(webuiFilePath(server.dataDir), 'utf8');
    for (const args of [
      ['keys', 'create', 'sneaky'],
      ['keys', 'list'],
      ['keys', 'revoke', 'kept'],
      ['keys', 'revoke', '--all'],
    ]) {
      const run = await runWebui(server.cwd, args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toMatch(
        new RegExp(
          `^webui keys \\w+: the server \\(pid ${server.pid}\\) holds the data directory but does not listen on .*webui\\.sock .*stop it ` +
            `and run this command again, or use the HTTP API; nothing was changed\\n$`,
        ),
      );
    }
    expect(readFileSync(webuiFilePath(server.dataDir), 'utf8')).toBe(before);
    expect(await server.stop()).toBe(0);
  });
});
