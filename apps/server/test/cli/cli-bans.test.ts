import { schemas } from '@webui/http-hono';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, makeTempDir, SERVER_BUNDLE, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { modeOf, readWebuiFile } from '../harness/webui-file.js';

// `webui bans` is apps/server's CLI over its control socket (Node); not part of the *.e2e suite shared with Bun and Deno.
afterAll(cleanupServers);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI without blocking this process, which may itself be serving a socket the CLI talks to. */
function webui(cwd: string, args: string[]): Promise<CliRun> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_BUNDLE, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const LOCAL_TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;
const STOPPED = new RegExp(
  'no server is running on .*, so no bans are in force: ' +
    "bans and failure counts live in the running server's memory and ended when it stopped",
);

/** The table's rows by key: cells are separated by two or more spaces; a blank line ends the table (the budget follows). */
function tableRows(stdout: string): Map<string, string[]> {
  const [heading, ...rows] = stdout.split('\n\n')[0]?.trimEnd().split('\n') ?? [];
  expect(heading?.split(/ {2,}/)).toEqual(['KEY', 'FAILURES', 'BANNED UNTIL', 'LAST ATTEMPT']);
  return new Map(rows.map((row) => row.split(/ {2,}/)).map((cells) => [cells[0] ?? '', cells.slice(1)]));
}

describe('webui bans with no server running', () => {
  it('bans list says no bans are in force and prints an empty list (exit 0); --json prints {"bans":[],"budget":null}', async () => {
    const cwd = makeTempDir();
    const table = await webui(cwd, ['bans', 'list']);
    expect(table).toMatchObject({ code: 0, stdout: 'no address has failures or a ban\n' });
    expect(table.stderr).toMatch(STOPPED);
    const json = await webui(cwd, ['bans', 'list', '--json']);
    expect(json).toMatchObject({ code: 0, stdout: '{"bans":[],"budget":null}\n' });
    expect(json.stderr).toMatch(STOPPED);
  });

  it('bans lift exits 1: nothing was lifted because no server runs', async () => {
    const run = await webui(makeTempDir(), ['bans', 'lift', '127.0.0.2']);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^nothing lifted: no server is running on .*, and bans live only in a running server's memory\n$/);
  });

  it('a socket file left by a killed server counts as stopped, and the next start replaces it', async () => {
    const server = await startServer();
    const socketPath = join(server.dataDir, 'webui.sock');
    expect(await server.stop('SIGKILL')).toBeNull();
    expect(lstatSync(socketPath).isSocket()).toBe(true);

    const list = await webui(server.cwd, ['bans', 'list']);
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(STOPPED);
    expect((await webui(server.cwd, ['bans', 'lift', 'all'])).code).toBe(1);

    const restarted = await startServer({ cwd: server.cwd });
    const again = await webui(restarted.cwd, ['bans', 'list', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({
      bans: [],
      budget: { limit: 100, failures: 0, state: 'open', delay_ms: null, retry_after: null },
    });
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(await restarted.stop()).toBe(0);
  });

  it('a socket that accepts but never answers: exit 1 after about 3 s, saying so', async () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, 'data'), { mode: 0o700 });
    const silent: NetServer = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(join(cwd, 'data', 'webui.sock'), resolve));
    try {
      const started = Date.now();
      const run = await webui(cwd, ['bans', 'list']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^webui bans list: the server does not answer on .*webui\.sock within 3 s\n$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
    } finally {
      silent.close();
    }
  });

  it.each([
    [['bans']],
    [['bans', 'frob']],
    [['bans', 'list', '--nope']],
    [['bans', 'list', 'extra']],
    [['bans', 'lift']],
    [['bans', 'lift', '127.0.0.2', '127.0.0.3']],
    [['bans', 'lift', '--force', '127.0.0.2']],
    [['bans', 'reset-budget', 'now']],
  ])('usage error %j exits 2 with one line on stderr', async (args) => {
    const run = await webui(makeTempDir(), args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^webui bans[^\n]*\n$/);
  });

  it('help lists the bans commands', () => {
    const run = spawnSync(process.execPath, [SERVER_BUNDLE, 'help'], { encoding: 'utf8' });
    expect(run.stdout).toMatch(/bans list \[--json\]/);
    expect(run.stdout).toMatch(/bans lift/);
    expect(run.stdout).toMatch(/bans reset-budget/);
  });
});

describe('webui bans against a running server', () => {
  let server: ServerProcess;
  let token: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const failFrom = async (localAddress: string, times: number) => {
    for (let n = 1; n <= times; n++) await from(localAddress).post('/auth/verify', { body: { token: `wrong-guess-${n}` } });
  };
  const bans = (...args: string[]) => webui(server.cwd, ['bans', ...args]);

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    await failFrom('127.0.0.2', 5);
    await failFrom('127.0.0.3', 2);
  });

  it('listens on data/webui.sock with mode 0600', () => {
    const socketPath = join(server.dataDir, 'webui.sock');
    expect(lstatSync(socketPath).isSocket()).toBe(true);
    expect(modeOf(socketPath)).toBe(0o600);
  });

  it('bans list shows the banned address and the one with 2 failures, in local time with seconds left', async () => {
    const run = await bans('list');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const rows = tableRows(run.stdout);
    expect([...rows.keys()]).toEqual(['127.0.0.2', '127.0.0.3']);
    const [failures, bannedUntil, lastAttempt] = rows.get('127.0.0.2') ?? [];
    expect(failures).toBe('0');
    expect(bannedUntil).toMatch(new RegExp(`^${LOCAL_TIME} \\((\\d+) s left\\)$`));
    const secondsLeft = Number(/\((\d+) s left\)/.exec(bannedUntil ?? '')?.[1]);
    expect(secondsLeft).toBeGreaterThan(540);
    expect(secondsLeft).toBeLessThanOrEqual(600);
    expect(lastAttempt).toMatch(new RegExp(`^${LOCAL_TIME}$`));
    expect(rows.get('127.0.0.3')).toEqual(['2', '-', expect.stringMatching(new RegExp(`^${LOCAL_TIME}$`))]);
    expect(run.stdout).not.toContain(token);
  });

  it('bans list --json prints exactly what GET /security/bans answers, and the global budget', async () => {
    const run = await bans('list', '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(run.stdout) as Record<string, unknown>;
    // The bans are GET /security/bans's own shape; the budget is the CLI's addition beside them.
    expect(v.is(schemas.BanListResponse, { bans: printed['bans'] })).toBe(true);

    const admin = from('127.0.0.1');
    expect((await admin.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const listed = await admin.get('/security/bans');
    expect(listed.status).toBe(200);
    expect(printed['bans']).toEqual(listed.json?.['bans']);
    expect(printed).toMatchObject({
      bans: [
        { key: '127.0.0.2', failures: 0 },
        { key: '127.0.0.3', failures: 2, banned_until: null },
      ],
    });
    expect(printed['budget']).toEqual({ limit: 100, failures: 7, state: 'open', delay_ms: null, retry_after: null });
  });

  it(
    'bans lift 127.0.0.2 prints what it lifted, and the very next verify with the right token from there answers 200 ' + 'valid:true',
    async () => {
      expect((await from('127.0.0.2').post('/auth/verify', { body: { token } })).status).toBe(429);
      const run = await bans('lift', '127.0.0.2');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^lifted 127\\.0\\.0\\.2 \\(banned until ${LOCAL_TIME}, \\d+ s left\\)\\n$`));
      expect(run.stderr).toBe('');

      const verify = await from('127.0.0.2').post('/auth/verify', { body: { token } });
      expect(verify.status).toBe(200);
      expect(verify.json).toMatchObject({ valid: true });
      await server.waitForLog((line) => line['via'] === 'cli' && line.msg === 'bans lifted');
      expect(server.logs().find((line) => line['via'] === 'cli')).toMatchObject({
        level: 30,
        module: 'control',
        target: '127.0.0.2',
        lifted: ['127.0.0.2'],
      });
    },
  );

  it('bans lift with a CIDR lifts every address inside it and nothing outside', async () => {
    await failFrom('127.0.0.4', 1);
    await failFrom('127.0.0.9', 1);
    const run = await bans('lift', '127.0.0.0/30');
    expect(run).toEqual({ code: 0, stdout: 'lifted 127.0.0.3 (had 2 failures)\n', stderr: '' });
    expect([...tableRows((await bans('list')).stdout).keys()].sort()).toEqual(['127.0.0.4', '127.0.0.9']);
  });

  it('bans lift of an address with nothing on record exits 1 and says nothing matched', async () => {
    const run = await bans('lift', '10.9.9.9');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe('nothing lifted: no address under 10.9.9.9 has failures or a ban\n');
  });

  it('bans lift of an invalid target exits 1 with the reason', async () => {
    const run = await bans('lift', 'two words');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(
      /^webui bans lift: the target must be `all`, an IP address, a CIDR, or a key as `webui bans list` shows it\n$/,
    );
  });

  it('bans lift all clears everything left', async () => {
    const run = await bans('lift', 'all');
    expect(run).toEqual({ code: 0, stdout: 'lifted 127.0.0.4 (had 1 failure)\nlifted 127.0.0.9 (had 1 failure)\n', stderr: '' });
    expect(await bans('list', '--json')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^\{"bans":\[\],"budget":\{/),
      stderr: '',
    });
    expect(await bans('lift', 'all')).toEqual({ code: 1, stdout: '', stderr: 'nothing lifted: no address has failures or a ban\n' });
  });

  it('the socket file is gone once the server stopped', async () => {
    expect(await server.stop()).toBe(0);
    expect(existsSync(join(server.dataDir, 'webui.sock'))).toBe(false);
    expect((await bans('list')).stderr).toMatch(STOPPED);
  });
});

describe('a running server the CLI cannot reach', () => {
  it('its socket file removed: the lock shows a server runs, so bans list exits 1 instead of claiming no bans', async () => {
    const server = await startServer();
    rmSync(join(server.dataDir, 'webui.sock'));
    const run = await webui(server.cwd, ['bans', 'list']);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(
      new RegExp(`^webui bans list: the server \\(pid ${server.pid}\\) holds the data directory but does not listen on .*webui\\.sock`),
    );
    expect(await server.stop()).toBe(0);
  });

  it('a data directory whose socket path is too long: one warning naming the path, the server runs, bans lift explains', async () => {
    const cwd = makeTempDir();
    const dataDir = join(cwd, 'a-data-directory-with-a-long-name'.repeat(3));
    const server = await startServer({ cwd, args: ['--data-dir', dataDir] });
    const warnings = server.logs().filter((line) => line.level === 40 && line['module'] === 'control');
    expect(warnings).toEqual([expect.objectContaining({ path: join(dataDir, 'webui.sock'), msg: expect.stringMatching(/too long/) })]);
    expect(existsSync(join(dataDir, 'webui.sock'))).toBe(false);

    const run = await webui(cwd, ['bans', 'lift', 'all', '--data-dir', dataDir]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/runs without a control socket: .* is longer than \d+ bytes/);
    expect(await server.stop()).toBe(0);
  });
});
