import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebui } from '../harness/processes/cli-process.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, makeTempDir, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { HEX64, OTHER_STRONG_TOKEN, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { modeOf, readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

// The CLI's admin commands through the control socket or on the files (Node); not part of the *.e2e suite shared with Bun and Deno.
afterAll(cleanupServers);

type AuditEntry = Record<string, unknown> & { time: string; event: string; address: string | null; via: string };

const auditPath = (dataDir: string) => join(dataDir, 'audit.log');

function auditEntries(dataDir: string): AuditEntry[] {
  if (!existsSync(auditPath(dataDir))) return [];
  return readFileSync(auditPath(dataDir), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEntry);
}

/** The events the CLI caused, without their times. */
function cliEvents(dataDir: string): Array<Record<string, unknown>> {
  return auditEntries(dataDir)
    .filter((entry) => entry.via === 'cli')
    .map(({ time, ...event }) => {
      expect(new Date(time).toISOString()).toBe(time);
      return event;
    });
}

function expectNoSecretIn(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(0);
    expect(text).not.toContain(secret);
  }
}

const verify = (server: ServerProcess, token: string, localAddress = '127.0.0.1') =>
  new HttpClient(server.baseUrl, { localAddress }).post('/auth/verify', { body: { token } });

describe('admin commands through a running server', () => {
  let server: ServerProcess;
  const secrets: string[] = [];
  let token: string;

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    secrets.push(token);
  });

  it('token regenerate: the old token stops working at once, the printed one works', async () => {
    expect((await verify(server, token)).json).toMatchObject({ valid: true });
    const run = await runWebui(server.cwd, ['token', 'regenerate']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    const fresh = run.stdout.trim();
    expect(fresh).toMatch(HEX64);
    secrets.push(fresh);
    // No waiting for a file watcher: the server itself made the change before the CLI printed it.
    expect((await verify(server, token, '127.0.0.5')).json).toMatchObject({ valid: false });
    expect((await verify(server, fresh)).json).toMatchObject({ valid: true, token_source: 'configured' });
    token = fresh;
  });

  it('token set: the new token works at once and appears in no output, log line or error', async () => {
    const weak = await runWebui(server.cwd, ['token', 'set'], { input: 'weakweakweak\n' });
    expect(weak).toMatchObject({ code: 1, stdout: '' });
    expect(weak.stderr).toMatch(/^webui token set: The new token needs .*uppercase/);
    expect(weak.stderr).not.toContain('weakweakweak');

    const run = await runWebui(server.cwd, ['token', 'set'], { input: `${STRONG_TOKEN}\n` });
    expect(run).toEqual({ code: 0, stdout: '', stderr: 'token updated; sessions under the old token have ended\n' });
    secrets.push(STRONG_TOKEN);
    expect((await verify(server, token, '127.0.0.5')).json).toMatchObject({ valid: false });
    expect((await verify(server, STRONG_TOKEN)).json).toMatchObject({ valid: true });
    expect(readWebuiFile(server.dataDir).access_token).toBe(STRONG_TOKEN);
    token = STRONG_TOKEN;
  });

  it('setup complete, status and reset: the running server answers /setup/status accordingly at once', async () => {
    const client = new HttpClient(server.baseUrl);
    expect((await client.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    expect(await runWebui(server.cwd, ['setup', 'complete'])).toEqual({
      code: 0,
      stdout: 'first setup: completed\ntoken source: configured\n',
      stderr: '',
    });
    expect((await client.get('/setup/status')).json).toMatchObject({ is_first_setup: false });
    expect(await runWebui(server.cwd, ['setup', 'status'])).toEqual({
      code: 0,
      stdout: 'first setup: completed\ntoken source: configured\n',
      stderr: '',
    });
    expect(await runWebui(server.cwd, ['setup', 'reset'])).toEqual({
      code: 0,
      stdout: 'first setup: open\ntoken source: configured\n',
      stderr: '',
    });
    expect((await client.get('/setup/status')).json).toMatchObject({ is_first_setup: true });
  });

  it('keys create and revoke --all, and bans lift', async () => {
    const created = await runWebui(server.cwd, ['keys', 'create', 'reporter', '--expires', '30d']);
    expect(created.code).toBe(0);
    secrets.push(created.stdout.trim());
    expect((await runWebui(server.cwd, ['keys', 'create', 'deployer', '--scope', 'admin'])).code).toBe(0);
    expect(await runWebui(server.cwd, ['keys', 'revoke', '--all'])).toEqual({
      code: 0,
      stdout: 'revoked reporter\nrevoked deployer\n',
      stderr: '',
    });

    for (let n = 1; n <= 5; n++) await verify(server, `wrong-guess-${n}`, '127.0.0.2');
    expect((await runWebui(server.cwd, ['bans', 'lift', '127.0.0.2'])).code).toBe(0);
  });

  it('the server recorded every change in data/audit.log with via cli and no address, never a secret, and nothing as a hand edit', () => {
    const events = cliEvents(server.dataDir);
    expect(events).toEqual([
      { event: 'token_changed', address: null, via: 'cli', how: 'regenerate' },
      { event: 'token_changed', address: null, via: 'cli', how: 'update' },
      { event: 'setup_completed', address: null, via: 'cli' },
      { event: 'setup_reset', address: null, via: 'cli' },
      {
        event: 'key_created',
        address: null,
        via: 'cli',
        key: 'reporter',
        scope: 'read',
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      { event: 'key_created', address: null, via: 'cli', key: 'deployer', scope: 'admin', expires_at: null },
      { event: 'key_revoked', address: null, via: 'cli', key: 'reporter' },
      { event: 'key_revoked', address: null, via: 'cli', key: 'deployer' },
      // 127.0.0.5 failed too (with retired tokens), so only the key asked for is lifted.
      { event: 'ban_lifted', address: null, via: 'cli', target: '127.0.0.2', lifted: ['127.0.0.2'] },
    ]);
    expect(auditEntries(server.dataDir).filter((entry) => entry.via === 'hand_edit')).toEqual([]);
    expect(modeOf(auditPath(server.dataDir))).toBe(0o600);
    expectNoSecretIn(readFileSync(auditPath(server.dataDir), 'utf8'), secrets);
    // The server's log: neither the token given to `token set`, nor the regenerated one, nor the key.
    expectNoSecretIn(server.stdout(), secrets.slice(1));
  });
});

describe('admin commands with no server running', () => {
  it('act on the data directory and append their events to data/audit.log themselves (via cli, no address), never a secret', async () => {
    const cwd = makeTempDir();
    const dataDir = join(cwd, 'data');
    const secrets = [STRONG_TOKEN];
    expect((await runWebui(cwd, ['token', 'set'], { input: STRONG_TOKEN })).code).toBe(0);
    const regenerated = await runWebui(cwd, ['token', 'regenerate']);
    expect(regenerated.code).toBe(0);
    secrets.push(regenerated.stdout.trim());
    expect(readWebuiFile(dataDir).access_token).toBe(regenerated.stdout.trim());
    expect((await runWebui(cwd, ['setup', 'complete'])).stdout).toBe('first setup: completed\ntoken source: configured\n');
    expect(readWebuiFile(dataDir).first_setup_completed).toBe(true);
    expect((await runWebui(cwd, ['setup', 'reset'])).code).toBe(0);
    const key = await runWebui(cwd, ['keys', 'create', 'offline', '--scope', 'admin', '--expires', '1h']);
    expect(key.code).toBe(0);
    secrets.push(key.stdout.trim());
    expect(await runWebui(cwd, ['keys', 'revoke', 'offline'])).toEqual({ code: 0, stdout: 'revoked offline\n', stderr: '' });
    // Reads record nothing.
    expect((await runWebui(cwd, ['keys', 'list'])).code).toBe(0);
    expect((await runWebui(cwd, ['setup', 'status'])).code).toBe(0);

    expect(cliEvents(dataDir)).toEqual([
      { event: 'token_changed', address: null, via: 'cli', how: 'update' },
      { event: 'token_changed', address: null, via: 'cli', how: 'regenerate' },
      { event: 'setup_completed', address: null, via: 'cli' },
      { event: 'setup_reset', address: null, via: 'cli' },
      {
        event: 'key_created',
        address: null,
        via: 'cli',
        key: 'offline',
        scope: 'admin',
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      { event: 'key_revoked', address: null, via: 'cli', key: 'offline' },
    ]);
    expect(auditEntries(dataDir)).toHaveLength(6);
    expect(modeOf(auditPath(dataDir))).toBe(0o600);
    expectNoSecretIn(readFileSync(auditPath(dataDir), 'utf8'), secrets);
  });

  it('a refused change records nothing', async () => {
    const cwd = makeTempDir();
    expect((await runWebui(cwd, ['token', 'set'], { input: STRONG_TOKEN })).code).toBe(0);
    expect((await runWebui(cwd, ['token', 'set'], { input: STRONG_TOKEN })).code).toBe(1);
    expect((await runWebui(cwd, ['keys', 'create', 'bad name'])).code).toBe(1);
    expect((await runWebui(cwd, ['keys', 'revoke', 'none'])).code).toBe(1);
    expect(cliEvents(join(cwd, 'data')).map((event) => event['event'])).toEqual(['token_changed']);
  });

  it('a server started afterwards appends to the same trail', async () => {
    const cwd = makeTempDir();
    expect((await runWebui(cwd, ['token', 'set'], { input: STRONG_TOKEN })).code).toBe(0);
    const server = await startServer({ cwd });
    expect((await runWebui(cwd, ['setup', 'complete'])).code).toBe(0);
    expect(await server.stop()).toBe(0);
    expect(cliEvents(server.dataDir).map((event) => event['event'])).toEqual(['token_changed', 'setup_completed']);
  });
});

describe('a running server the CLI cannot reach', () => {
  it(
    'token set, token regenerate and setup refuse with exit 1, changing neither webui.json nor audit.log, and never ' + 'echo the token',
    async () => {
      const server = await startServer();
      rmSync(join(server.dataDir, 'webui.sock'));
      const record = readFileSync(webuiFilePath(server.dataDir), 'utf8');
      const trail = readFileSync(auditPath(server.dataDir), 'utf8');
      const runs = [
        await runWebui(server.cwd, ['token', 'set'], { input: OTHER_STRONG_TOKEN }),
        await runWebui(server.cwd, ['token', 'regenerate']),
        await runWebui(server.cwd, ['setup', 'complete']),
        await runWebui(server.cwd, ['setup', 'reset']),
        await runWebui(server.cwd, ['setup', 'status']),
      ];
      for (const run of runs) {
        expect(run).toMatchObject({ code: 1, stdout: '' });
        expect(run.stderr).toMatch(
          new RegExp(
            `^webui (token|setup) \\w+: the server \\(pid ${server.pid}\\) holds the data directory but does not listen on .*nothing was ` +
              `changed\\n$`,
          ),
        );
        expect(run.stderr).not.toContain(OTHER_STRONG_TOKEN);
      }
      expect(readFileSync(webuiFilePath(server.dataDir), 'utf8')).toBe(record);
      expect(readFileSync(auditPath(server.dataDir), 'utf8')).toBe(trail);
      // Reading the token needs no server: token show reads webui.json either way.
      expect((await runWebui(server.cwd, ['token', 'show'])).stdout).toBe(`${readWebuiFile(server.dataDir).access_token}\n`);
      expect(await server.stop()).toBe(0);
    },
  );
});
