import { startRedisServer, type RedisServerHandle } from '@webui/store-redis/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebui } from '../harness/processes/cli-process.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, freePort, makeTempDir, runServerToExit, startServer } from '../harness/processes/server-process.js';
import { OTHER_STRONG_TOKEN, STRONG_TOKEN } from '../harness/clients/tokens.js';

// What an operator does around a shared store on Node: start against a Redis that is not there, move
// from the JSON file to Redis, run the CLI against it. Not part of the *.e2e suite shared with Bun and Deno.
let redis: RedisServerHandle;
let prefixCount = 0;

beforeAll(async () => {
  redis = await startRedisServer({ password: 'redis-Secret-pw-42' });
}, 60_000);

afterAll(async () => {
  await cleanupServers();
  await redis?.stop();
});

/** A working directory whose config names the shared Redis under a prefix of its own. */
function deployment(prefix: string, extra = ''): string {
  const cwd = makeTempDir('webui-shared-');
  mkdirSync(join(cwd, 'config'));
  writeFileSync(join(cwd, 'config', 'bot_config.toml'), `[webui]\nstore = "${redis.url}"\nstore_prefix = "${prefix}"\n${extra}`);
  return cwd;
}

const freshPrefix = (): string => `operator-${process.pid}-${++prefixCount}:`;

function writeRecordFile(cwd: string, record: Record<string, unknown>): void {
  mkdirSync(join(cwd, 'data'), { recursive: true, mode: 0o700 });
  writeFileSync(join(cwd, 'data', 'webui.json'), JSON.stringify(record), { mode: 0o600 });
}

describe('the shared store for operators', () => {
  it('Redis unreachable at startup: exit 1 with one line naming the address, never the password', async () => {
    const port = await freePort();
    const run = await runServerToExit({ env: { WEBUI_STORE: `redis://:hunter2-Password@127.0.0.1:${port}/3` } });
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`redis://:***@127.0.0.1:${port}/3`);
    expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2-Password');
  });

  it('config check shows the store with its password masked', async () => {
    const cwd = deployment('masked:');
    const check = await runWebui(cwd, ['config', 'check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('webui.store = "redis://:***@127.0.0.1:');
    expect(check.stdout).toContain('webui.store_prefix = "masked:" (file)');
    expect(check.stdout + check.stderr).not.toContain('redis-Secret-pw-42');
    const bad = await runWebui(cwd, ['config', 'check'], { env: { WEBUI_STORE: 'http://:leaky-pw@example.com/' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/WEBUI_STORE: must be "file" or a Redis URL/);
    expect(bad.stderr).not.toContain('leaky-pw');
  });

  it('the first start on an empty Redis imports data/webui.json once, and never overwrites the record in Redis', async () => {
    const prefix = freshPrefix();
    const cwd = deployment(prefix);
    writeRecordFile(cwd, { access_token: STRONG_TOKEN, token_source: 'configured', first_setup_completed: true });
    const first = await startServer({ cwd });
    expect(first.logs().some((line) => line.msg?.startsWith('imported webui.json into the shared store'))).toBe(true);
    expect(first.stderr()).toContain('configured (not shown; it is kept in the shared store)');
    expect((await new HttpClient(first.baseUrl).post('/auth/verify', { body: { token: STRONG_TOKEN } })).status).toBe(200);
    await first.stop();

    // The file edited afterwards is no longer read: Redis holds the record.
    writeRecordFile(cwd, { access_token: OTHER_STRONG_TOKEN, token_source: 'configured', first_setup_completed: false });
    const second = await startServer({ cwd });
    expect(second.logs().some((line) => line.msg?.startsWith('imported'))).toBe(false);
    const client = new HttpClient(second.baseUrl);
    expect((await client.post('/auth/verify', { body: { token: STRONG_TOKEN } })).status).toBe(200);
    expect((await client.get('/setup/status')).json).toMatchObject({ is_first_setup: false });
  });

  it('an invalid webui.json is not imported: the start stops naming the file, and Redis stays empty', async () => {
    const prefix = freshPrefix();
    const cwd = deployment(prefix);
    writeRecordFile(cwd, { access_token: '' });
    const run = await runServerToExit({ cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/webui\.json cannot be imported into the shared store: .*access_token/);
    // A later start with the file moved aside begins with a temporary token, so Redis was left empty.
    writeRecordFile(cwd, { access_token: STRONG_TOKEN, first_setup_completed: false });
    const server = await startServer({ cwd });
    expect(server.logs().some((line) => line.msg?.startsWith('imported webui.json'))).toBe(true);
  });

  it('token and setup commands work against the shared store, with the server on another host stopped or running', async () => {
    const prefix = freshPrefix();
    const serverHome = deployment(prefix);
    const server = await startServer({ cwd: serverHome });
    const browser = new HttpClient(server.baseUrl);
    const temporary = String(server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);
    expect((await browser.post('/auth/verify', { body: { token: temporary } })).status).toBe(200);

    // The CLI on another host: its own data directory, no server there, the same Redis.
    const operatorHost = deployment(prefix);
    const set = await runWebui(operatorHost, ['token', 'set'], { input: `${STRONG_TOKEN}\n` });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(STRONG_TOKEN);
    // The running server heard of it at once: the old cookie is refused, the new token works.
    expect((await browser.get('/auth/check')).json).toEqual({ authenticated: false });
    expect((await new HttpClient(server.baseUrl).post('/auth/verify', { body: { token: STRONG_TOKEN } })).status).toBe(200);

    const complete = await runWebui(operatorHost, ['setup', 'complete']);
    expect(complete.code, complete.stderr).toBe(0);
    const after = new HttpClient(server.baseUrl);
    await after.post('/auth/verify', { body: { token: STRONG_TOKEN } });
    expect((await after.get('/setup/status')).json).toMatchObject({ is_first_setup: false });
  });
  it('bans list and lift work against the shared store with no server on this host, the server elsewhere running or stopped', async () => {
    const prefix = freshPrefix();
    const server = await startServer({ cwd: deployment(prefix) });
    const token = String(server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);
    // Five wrong tokens from 127.0.0.7 ban it (docs/decisions/0002-failed-verification-and-bans.md); the ban is kept in Redis.
    const guesser = new HttpClient(server.baseUrl, { localAddress: '127.0.0.7' });
    const guessFiveTimes = async () => {
      for (let n = 0; n < 5; n++) await guesser.post('/auth/verify', { body: { token: `wrong-guess-${n}` } });
    };
    await guessFiveTimes();
    expect((await guesser.post('/auth/verify', { body: { token } })).status).toBe(429);
    const operatorHost = deployment(prefix);

    // The server runs on another host: the operator reads and lifts the ban in Redis, and the server honours the lift at once.
    const listed = await runWebui(operatorHost, ['bans', 'list', '--json']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual({
      bans: [expect.objectContaining({ key: '127.0.0.7', banned_until: expect.any(String) })],
      budget: expect.objectContaining({ failures: 5 }),
    });
    const lifted = await runWebui(operatorHost, ['bans', 'lift', '127.0.0.7']);
    expect(lifted).toMatchObject({ code: 0, stdout: expect.stringMatching(/^lifted 127\.0\.0\.7 /) });
    expect((await guesser.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });

    // The server stopped: the ban outlives it in Redis, and lifting it there is in force for the next start.
    await guessFiveTimes();
    expect(await server.stop()).toBe(0);
    expect(JSON.parse((await runWebui(operatorHost, ['bans', 'list', '--json'])).stdout)).toEqual({
      bans: [expect.objectContaining({ key: '127.0.0.7' })],
      budget: expect.any(Object),
    });
    expect(await runWebui(operatorHost, ['bans', 'lift', 'all'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^lifted 127\.0\.0\.7 /),
    });
    expect(await runWebui(operatorHost, ['bans', 'lift', '127.0.0.7'])).toMatchObject({
      code: 1,
      stderr: 'nothing lifted: no address under 127.0.0.7 has failures or a ban\n',
    });
    expect(JSON.parse((await runWebui(operatorHost, ['bans', 'list', '--json'])).stdout)).toEqual({ bans: [], budget: expect.any(Object) });
  });

  it('bans list shows the global budget kept in Redis, and reset-budget empties it with no server on this host (issue 31)', async () => {
    const prefix = freshPrefix();
    const budget = 'global_failure_budget = 2\n';
    const server = await startServer({ cwd: deployment(prefix, budget) });
    const token = String(server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);
    for (let n = 1; n <= 4; n++)
      await new HttpClient(server.baseUrl, { localAddress: `127.0.0.${20 + n}` }).post('/auth/verify', {
        body: { token: `wrong-guess-${n}` },
      });
    const newcomer = new HttpClient(server.baseUrl, { localAddress: '127.0.0.30' });
    expect((await newcomer.post('/auth/verify', { body: { token } })).status).toBe(429);
    const operatorHost = deployment(prefix, budget);

    const listed = await runWebui(operatorHost, ['bans', 'list', '--json']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout).budget).toEqual({
      limit: 2,
      failures: 4,
      state: 'throttled',
      delay_ms: null,
      retry_after: expect.any(Number),
    });
    expect(await runWebui(operatorHost, ['bans', 'reset-budget'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^global failure budget reset: 4 failures forgotten\n/),
    });
    // The running server reads the same budget in Redis: the newcomer is let in at once.
    expect((await newcomer.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    await server.stop();
  });
});
