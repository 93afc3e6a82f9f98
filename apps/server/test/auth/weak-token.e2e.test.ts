import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWebui } from '../harness/processes/cli-process.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, makeTempDir, startServer, type LogLine } from '../harness/processes/server-process.js';
import { STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

afterAll(cleanupServers);

const HOST_ARGS = ['--host', '127.0.0.1'];
const cookieOf = (token: string) => `bot_session=${encodeURIComponent(token)}`;
const weakTokenWarning = (line: LogLine) =>
  line.level === 40 && Array.isArray(line['rules']) && /access token is weak/.test(String(line.msg));

/** A working directory whose data/webui.json holds `token` as a configured token, as an operator would write it. */
function workdirWithToken(token: string): { cwd: string; file: string } {
  const cwd = makeTempDir();
  const dataDir = join(cwd, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const file = webuiFilePath(dataDir);
  writeFileSync(file, `${JSON.stringify({ access_token: token, token_source: 'configured', first_setup_completed: true })}\n`, {
    mode: 0o600,
  });
  return { cwd, file };
}

/** Issue 31 item 4: a weak token is accepted however it got there, but never silently, and the dashboard is sent to set a proper one. */
describe('a weak access token written by hand', () => {
  it('a hand edit to "a": a warning naming the broken rules, and every report says a custom token is required', async () => {
    const server = await startServer({ args: HOST_ARGS });
    const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.41' });
    const temporary = readWebuiFile(server.dataDir).access_token;
    expect((await client.post('/auth/update', { body: { new_token: STRONG_TOKEN }, cookie: cookieOf(temporary) })).status).toBe(200);
    expect((await client.get('/auth/check', { cookie: cookieOf(STRONG_TOKEN) })).json).toMatchObject({
      authenticated: true,
      requires_custom_token: false,
    });

    writeFileSync(webuiFilePath(server.dataDir), `${JSON.stringify({ ...readWebuiFile(server.dataDir), access_token: 'a' })}\n`);
    const warning = await server.waitForLog(weakTokenWarning, 3_000);
    expect(warning['rules']).toEqual(['too_short', 'missing_uppercase', 'missing_special']);
    expect(warning.msg).toMatch(/at least 10 characters/);

    // The edit is in force (it is the operator's file), and the dashboard's wizard is asked for.
    expect((await client.get('/auth/check', { cookie: cookieOf('a') })).json).toEqual({
      authenticated: true,
      token_source: 'configured',
      requires_custom_token: true,
    });
    expect((await client.post('/auth/verify', { body: { token: 'a' }, cookie: null })).json).toMatchObject({
      valid: true,
      token_source: 'configured',
      requires_custom_token: true,
    });
    expect((await client.get('/setup/status', { cookie: cookieOf('a') })).json).toMatchObject({
      token_source: 'configured',
      requires_custom_token: true,
    });

    // What the wizard then does: a strong token clears the flag.
    expect((await client.post('/auth/update', { body: { new_token: 'Wizard-Set_Token!2026' }, cookie: cookieOf('a') })).status).toBe(200);
    expect((await client.get('/auth/check', { cookie: cookieOf('Wizard-Set_Token!2026') })).json).toMatchObject({
      authenticated: true,
      requires_custom_token: false,
    });
  });

  it('the warning never holds the token itself', async () => {
    const server = await startServer({ args: HOST_ARGS });
    writeFileSync(
      webuiFilePath(server.dataDir),
      `${JSON.stringify({ ...readWebuiFile(server.dataDir), access_token: 'hunter2hunter2', token_source: 'configured' })}\n`,
    );
    const warning = await server.waitForLog(weakTokenWarning, 3_000);
    expect(warning['rules']).toEqual(['missing_uppercase', 'missing_special']);
    expect(`${server.stdout()}${server.stderr()}`).not.toContain('hunter2');
  });

  it('a start with a weak token: the banner and the log say so, naming the rules; it still logs in', async () => {
    const { cwd } = workdirWithToken('a');
    const server = await startServer({ cwd, args: HOST_ARGS });
    expect(server.stderr()).toMatch(
      /warning +the access token is weak: it needs at least 10 characters; an uppercase letter \(A-Z\); a special character/,
    );
    expect(server.logs().filter(weakTokenWarning)).toHaveLength(1);
    const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.42' });
    expect((await client.get('/auth/check', { cookie: cookieOf('a') })).json).toEqual({
      authenticated: true,
      token_source: 'configured',
      requires_custom_token: true,
    });
  });

  it('a start with a strong or a generated (64-hex) configured token: no weak-token warning, no custom token required', async () => {
    for (const token of [STRONG_TOKEN, 'c0ffee'.repeat(10).padEnd(64, '0')]) {
      const { cwd } = workdirWithToken(token);
      const server = await startServer({ cwd, args: HOST_ARGS });
      expect(server.stderr()).not.toMatch(/weak/);
      expect(server.logs().filter(weakTokenWarning)).toEqual([]);
      const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.43' });
      expect((await client.get('/auth/check', { cookie: cookieOf(token) })).json).toEqual({
        authenticated: true,
        token_source: 'configured',
        requires_custom_token: false,
      });
      await server.stop();
    }
  });

  it('`webui config check` exits 1 with one line naming the rules and the file; 0 with a strong token', async () => {
    const weak = workdirWithToken('a');
    const run = await runWebui(weak.cwd, ['config', 'check']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(weak.file);
    expect(run.stderr).toMatch(/at least 10 characters; an uppercase letter \(A-Z\); a special character/);

    const strong = workdirWithToken(STRONG_TOKEN);
    const fine = await runWebui(strong.cwd, ['config', 'check']);
    expect(fine.code).toBe(0);
    expect(fine.stderr).toBe('');
    expect(`${fine.stdout}${fine.stderr}`).not.toContain(STRONG_TOKEN);
  });
});
