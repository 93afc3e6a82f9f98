import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import {
  cleanupServers,
  defaultLauncher,
  eventually,
  makeTempDir,
  runServerToExit,
  startServer,
  type LogLine,
  type ServerLauncher,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { dataDirFiles, readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

afterAll(cleanupServers);

const RUNTIME = process.env['WEBUI_E2E_RUNTIME'] ?? 'node';
const HOST_ARGS = ['--host', '127.0.0.1'];
const cookieOf = (token: string) => `bot_session=${encodeURIComponent(token)}`;
/** The store's events reach the log as `event: {kind, ...}`, whatever sentence each runtime's wiring puts beside them. */
const storeEvent = (kind: string) => (entry: LogLine) => (entry['event'] as { kind?: unknown } | undefined)?.kind === kind;

/** A data directory under a fresh working directory, holding `content` as webui.json. */
function workdirWithFile(content: string | Buffer): { cwd: string; dataDir: string; file: string } {
  const cwd = makeTempDir();
  const dataDir = join(cwd, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(webuiFilePath(dataDir), content, { mode: 0o600 });
  return { cwd, dataDir, file: webuiFilePath(dataDir) };
}

/**
 * Root ignores file permissions, so as root the server runs as nobody to meet a permission it lacks;
 * as any other user it runs as that user. null when neither is possible here.
 */
function unprivilegedLauncher(): { launcher: ServerLauncher; giveAway: (path: string) => void } | null {
  if (process.getuid?.() !== 0) return { launcher: defaultLauncher, giveAway: () => undefined };
  if (RUNTIME !== 'node') return null;
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const NOBODY = 65534;
  return {
    launcher: {
      name: 'node as nobody',
      command: (cwd, args, env) => {
        const inner = defaultLauncher.command(cwd, args, env);
        return { cmd: 'setpriv', args: [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', inner.cmd, ...inner.args] };
      },
    },
    giveAway: (path) => {
      chownSync(path, NOBODY, NOBODY);
      if (statSync(path).isDirectory()) for (const name of readdirSync(path)) chownSync(join(path, name), NOBODY, NOBODY);
    },
  };
}

describe('a bad token file at startup', () => {
  afterEach(cleanupServers);

  it.each([
    ['not JSON', '{"access_token": "abc",'],
    ['JSON of the wrong shape (access_token a number)', '{"access_token": 42, "first_setup_completed": true}\n'],
    ['JSON of the wrong shape (an array)', '["access_token", "Configured-Token!1"]\n'],
    ['JSON of the wrong shape (an empty access_token)', '{"access_token": "", "token_source": "configured"}\n'],
    ['an empty file', ''],
    ['only whitespace', '  \n\t\n'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ])('%s: kept aside byte for byte as webui.json.corrupt-<time>, a fresh temporary token, an error in the log', async (_label, content) => {
    const { cwd, dataDir, file } = workdirWithFile(content);
    const server = await startServer({ cwd, args: HOST_ARGS });

    const aside = readdirSync(dataDir).filter((name) => name.startsWith('webui.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dataDir, aside[0] as string))).toEqual(Buffer.from(content));

    const fresh = readWebuiFile(dataDir);
    expect(fresh).toMatchObject({
      access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      token_source: 'temporary',
      first_setup_completed: false,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const line = await server.waitForLog(storeEvent('corrupt-file-moved'));
    expect(line.level).toBe(50);
    expect(JSON.stringify(line)).toContain(aside[0]);
    // The moved file took any API keys with it: the line says where they are and how to restore them.
    expect(line.msg).toContain(`moved to ${join(dataDir, aside[0] as string)}`);
    expect(line.msg).toMatch(/API keys it held are in that file/);
    expect(line.msg).toContain(`stop the server, fix the JSON in ${join(dataDir, aside[0] as string)} and move it back to ${file}`);
    expect((await new HttpClient(server.baseUrl).post('/auth/verify', { body: { token: fresh.access_token } })).json).toMatchObject({
      valid: true,
    });
  });

  it(
    'a data directory that cannot be created (/proc/self/webui): exits 1 at once with one line naming it and why, ' + 'no spinning',
    async () => {
      const run = await runServerToExit({ args: HOST_ARGS, env: { WEBUI_DATA_DIR: '/proc/self/webui' } });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      // The reason is the runtime's: ENOENT on Node and Bun, a refused permission on Deno.
      expect(run.stderr).toMatch(/cannot create the data directory \/proc\/self\/webui: \S/);
    },
  );

  it('a directory where the file should be: a one-line startup error naming the path, and the directory is left alone', async () => {
    const cwd = makeTempDir();
    const dataDir = join(cwd, 'data');
    mkdirSync(join(webuiFilePath(dataDir), 'inside'), { recursive: true });
    writeFileSync(join(webuiFilePath(dataDir), 'inside', 'keep.txt'), 'operator notes');

    const run = await runServerToExit({ cwd, args: HOST_ARGS });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(webuiFilePath(dataDir));
    expect(run.stderr).toMatch(/is a directory/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(webuiFilePath(dataDir), 'inside', 'keep.txt'), 'utf8')).toBe('operator notes');
    expect(readdirSync(dataDir).filter((name) => name.includes('corrupt'))).toEqual([]);
    // The refused start leaves no lock behind that would block the next one.
    expect(existsSync(join(dataDir, 'webui.lock'))).toBe(false);
  });

  const unprivileged = unprivilegedLauncher();
  it.skipIf(unprivileged === null)(
    'an unreadable file (mode 000): a startup error naming the file and the permission, and the file kept as it was',
    async () => {
      const { launcher, giveAway } = unprivileged as NonNullable<typeof unprivileged>;
      const record = { access_token: 'Configured-Token!1', token_source: 'configured', first_setup_completed: true };
      const content = `${JSON.stringify(record)}\n`;
      const { cwd, dataDir, file } = workdirWithFile(content);
      giveAway(cwd);
      giveAway(dataDir);
      chmodSync(file, 0o000);

      const run = await runServerToExit({ cwd, args: HOST_ARGS, launcher });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Cannot read the token file ${file}`);
      expect(run.stderr).toMatch(/permission denied/);
      expect(run.logs.some((line) => line.msg === 'WebUI API listening')).toBe(false);
      expect(statSync(file).mode & 0o777).toBe(0o000);
      expect(readFileSync(file, 'utf8')).toBe(content);
      expect(readdirSync(dataDir).sort()).toEqual(['webui.json']);
    },
  );
});

describe('a data directory that turns read-only while running', () => {
  afterEach(cleanupServers);
  const unprivileged = unprivilegedLauncher();

  it.skipIf(unprivileged === null)(
    'writes answer 500 with the error body (docs/decisions/0001-error-bodies.md), the old token and state stay in force, nothing is half-written; writable again, writes work',
    async () => {
      const { launcher, giveAway } = unprivileged as NonNullable<typeof unprivileged>;
      const cwd = makeTempDir();
      giveAway(cwd);
      const server = await startServer({ cwd, args: HOST_ARGS, launcher });
      const token = readWebuiFile(server.dataDir).access_token;
      const before = readFileSync(webuiFilePath(server.dataDir));
      const client = new HttpClient(server.baseUrl);

      chmodSync(server.dataDir, 0o500);
      try {
        const update = await client.post('/auth/update', { body: { new_token: 'Read-Only-Dir!Token1' }, cookie: cookieOf(token) });
        expectErrorBody(update, 500);
        expect(update.setCookie.filter((line) => line.startsWith('bot_session='))).toEqual([]);
        expectErrorBody(await client.post('/auth/regenerate', { cookie: cookieOf(token) }), 500);
        expectErrorBody(await client.post('/setup/complete', { cookie: cookieOf(token) }), 500);

        expect(readFileSync(webuiFilePath(server.dataDir))).toEqual(before);
        expect(dataDirFiles(server.dataDir)).toEqual(['webui.json', 'webui.lock']);
        const verify = await client.post('/auth/verify', { body: { token } });
        expect(verify.json).toMatchObject({ valid: true, is_first_setup: true, token_source: 'temporary' });
        expect((await client.post('/auth/verify', { body: { token: 'Read-Only-Dir!Token1' } })).json).toMatchObject({ valid: false });
        expect(server.logs().some((line) => line.msg === 'request failed' && line.level === 50)).toBe(true);
      } finally {
        chmodSync(server.dataDir, 0o700);
      }

      const retry = await client.post('/auth/update', { body: { new_token: 'Read-Only-Dir!Token1' }, cookie: cookieOf(token) });
      expect(retry.status).toBe(200);
      expect(readWebuiFile(server.dataDir).access_token).toBe('Read-Only-Dir!Token1');
    },
  );
});

describe('hand edits while running', () => {
  let server: ServerProcess;
  let client: HttpClient;
  let current: string;
  const file = () => webuiFilePath(server.dataDir);
  const editByHand = (change: Record<string, unknown>) =>
    writeFileSync(file(), `${JSON.stringify({ ...readWebuiFile(server.dataDir), ...change }, null, 2)}\n`);

  /** Milliseconds until `check` holds, polled every 25 ms; fails after 3 s. */
  async function takesEffect(check: () => Promise<boolean>): Promise<number> {
    const started = performance.now();
    await vi.waitFor(
      async () => {
        if (!(await check())) throw new Error('the hand edit did not take effect within 3 s');
      },
      { timeout: 3_000, interval: 25 },
    );
    return performance.now() - started;
  }
  // A wrong cookie polled again and again is one guess (docs/decisions/0004-guessing-through-the-cookie.md): polling cannot ban the test client.
  const authenticatedWith = async (token: string) =>
    (await client.get('/auth/check', { cookie: cookieOf(token) })).json?.['authenticated'] === true;
  const isFirstSetup = async () => (await client.get('/setup/status', { cookie: cookieOf(current) })).json?.['is_first_setup'];

  beforeAll(async () => {
    server = await startServer({ args: HOST_ARGS });
    client = new HttpClient(server.baseUrl);
    const temporary = readWebuiFile(server.dataDir).access_token;
    current = 'Hand-Edit!Start1';
    expect((await client.post('/auth/update', { body: { new_token: current }, cookie: cookieOf(temporary) })).status).toBe(200);
  });

  it('a new access_token takes effect within a second; the old one stops working', async () => {
    editByHand({ access_token: 'Edited-By-Hand!2' });
    const elapsed = await takesEffect(() => authenticatedWith('Edited-By-Hand!2'));
    expect(elapsed).toBeLessThan(1_000);
    expect(await authenticatedWith(current)).toBe(false);
    current = 'Edited-By-Hand!2';
    await server.waitForLog(storeEvent('reloaded'));
    expect(server.stdout()).not.toContain('Edited-By-Hand!2');
  });

  it('first_setup_completed takes effect within a second, both ways', async () => {
    expect(await isFirstSetup()).toBe(true);
    editByHand({ first_setup_completed: true });
    expect(await takesEffect(async () => (await isFirstSetup()) === false)).toBeLessThan(1_000);
    editByHand({ first_setup_completed: false });
    expect(await takesEffect(async () => (await isFirstSetup()) === true)).toBeLessThan(1_000);
  });

  it.each([
    ['not JSON', () => '{"access_token": "Half-Typed'],
    ['the wrong shape', () => `${JSON.stringify({ access_token: 'Wrong-Shape!3', first_setup_completed: 'yes' })}\n`],
    ['an empty access_token', () => `${JSON.stringify({ access_token: '', token_source: 'configured', first_setup_completed: true })}\n`],
    ['an empty file', () => ''],
  ])(
    'an invalid edit (%s) is refused with an error in the log; the last good state stays, the file is left where it is',
    async (_label, content) => {
      const refusals = () => server.logs().filter(storeEvent('reload-refused'));
      const refusalsBefore = refusals().length;
      const text = content();
      writeFileSync(file(), text);
      await eventually(() => refusals().length > refusalsBefore, 2_000, 'a reload-refused error in the log');
      const line = refusals().at(-1);
      expect(line?.level).toBe(50);
      expect(await authenticatedWith(current)).toBe(true);
      expect(await authenticatedWith('Wrong-Shape!3')).toBe(false);
      expect(await isFirstSetup()).toBe(true);
      // The operator may be mid-edit: the file is neither moved aside nor rewritten.
      expect(readFileSync(file(), 'utf8')).toBe(text);
      expect(readdirSync(server.dataDir).filter((name) => name.includes('corrupt'))).toEqual([]);

      // Put right again, it is taken.
      writeFileSync(
        file(),
        `${JSON.stringify({ access_token: current, token_source: 'configured', first_setup_completed: false }, null, 2)}\n`,
      );
      await takesEffect(() => authenticatedWith(current));
    },
  );
});
