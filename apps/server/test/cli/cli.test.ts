import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, makeTempDir, SERVER_BUNDLE, startServer } from '../harness/processes/server-process.js';
import { HEX64, OTHER_STRONG_TOKEN, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { readWebuiFile } from '../harness/webui-file.js';

// The CLI is apps/server's (Node); this file is not part of the suite shared with Bun and Deno.
afterAll(cleanupServers);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function webui(cwd: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): CliRun {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')));
  const run = spawnSync(process.execPath, [SERVER_BUNDLE, ...args], {
    cwd,
    input: options.input ?? '',
    env: { ...env, ...options.env },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const dataDirOf = (cwd: string) => join(cwd, 'data');

describe('webui CLI on a stopped server', () => {
  it('token show without any data refuses (exit 1) and says how to get a token', () => {
    const run = webui(makeTempDir(), ['token', 'show']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no token yet/);
    expect(run.stdout).toBe('');
  });

  it('token set reads the token from stdin, writes it as configured (0600), and show hides it without --reveal', () => {
    const cwd = makeTempDir();
    expect(webui(cwd, ['token', 'set'], { input: `${STRONG_TOKEN}\n` }).code).toBe(0);
    const file = readWebuiFile(dataDirOf(cwd));
    expect(file).toMatchObject({ access_token: STRONG_TOKEN, token_source: 'configured', first_setup_completed: false });

    const hidden = webui(cwd, ['token', 'show']);
    expect(hidden.code).toBe(1);
    expect(hidden.stdout).toBe('');
    expect(`${hidden.stdout}${hidden.stderr}`).not.toContain(STRONG_TOKEN);
    expect(hidden.stderr).toMatch(/--reveal/);

    const revealed = webui(cwd, ['token', 'show', '--reveal']);
    expect(revealed.code).toBe(0);
    expect(revealed.stdout).toBe(`${STRONG_TOKEN}\n`);
    expect(revealed.stderr).toMatch(/configured/);
  });

  it('token set refuses a weak token with every broken rule (exit 1) and changes nothing', () => {
    const cwd = makeTempDir();
    webui(cwd, ['token', 'set'], { input: STRONG_TOKEN });
    const run = webui(cwd, ['token', 'set'], { input: 'weak' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/at least 10 characters/);
    expect(run.stderr).toMatch(/uppercase/);
    expect(run.stderr).toMatch(/special character/);
    expect(readWebuiFile(dataDirOf(cwd)).access_token).toBe(STRONG_TOKEN);
  });

  it('token regenerate prints a new 64-hex token once and writes it', () => {
    const cwd = makeTempDir();
    webui(cwd, ['token', 'set'], { input: STRONG_TOKEN });
    const run = webui(cwd, ['token', 'regenerate']);
    expect(run.code).toBe(0);
    const token = run.stdout.trim();
    expect(token).toMatch(HEX64);
    expect(readWebuiFile(dataDirOf(cwd))).toMatchObject({ access_token: token, token_source: 'configured' });
  });

  it('token show prints a temporary token without --reveal (it is printed at startup anyway)', async () => {
    const server = await startServer();
    const temporary = readWebuiFile(server.dataDir).access_token;
    expect(await server.stop()).toBe(0);
    const run = webui(server.cwd, ['token', 'show']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${temporary}\n`);
    expect(run.stderr).toMatch(/temporary/);
  });

  it('setup status, complete and reset change first_setup_completed', () => {
    const cwd = makeTempDir();
    webui(cwd, ['token', 'set'], { input: STRONG_TOKEN });
    expect(webui(cwd, ['setup', 'status']).stdout).toMatch(/first setup: open/);
    expect(webui(cwd, ['setup', 'complete']).code).toBe(0);
    expect(readWebuiFile(dataDirOf(cwd)).first_setup_completed).toBe(true);
    expect(webui(cwd, ['setup', 'status']).stdout).toMatch(/first setup: completed/);
    expect(webui(cwd, ['setup', 'reset']).code).toBe(0);
    expect(readWebuiFile(dataDirOf(cwd)).first_setup_completed).toBe(false);
  });

  it('config check prints every effective setting with its source, never the secret key', () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, 'config'));
    writeFileSync(join(cwd, 'config', 'bot_config.toml'), '[webui]\nsession_expire = 30\nsecret_key = "s3cret-value"\n');
    const run = webui(cwd, ['config', 'check', '--host', '127.0.0.1'], { env: { WEBUI_PORT: '9100' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/webui\.port = 9100 \(env\)/);
    expect(run.stdout).toMatch(/webui\.host = \["127\.0\.0\.1"\] \(flag\)/);
    expect(run.stdout).toMatch(/webui\.session_expire = 30 \(file\)/);
    expect(run.stdout).toMatch(/webui\.mode = "production" \(default\)/);
    expect(run.stdout).toMatch(/webui\.secret_key = \(set\)/);
    expect(run.stdout).toMatch(/webui\.log_format = "auto" \(default\)/);
    expect(run.stdout).toMatch(/webui\.metrics_port = \(not set\) \(default\)/);
    expect(run.stdout).not.toContain('s3cret-value');
  });

  it('config check shows [webui.upstream] with every header value masked and the variables it reads named', () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, 'config'));
    writeFileSync(
      join(cwd, 'config', 'bot_config.toml'),
      '[webui.upstream]\nurl = "http://127.0.0.1:8002"\n' +
        '[webui.upstream.headers]\nCookie = "maibot_session=${MAIBOT_TOKEN}"\nX-Extra = "pw-in-file"\n',
    );
    const run = webui(cwd, ['config', 'check'], { env: { MAIBOT_TOKEN: 'pw-in-env' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('webui.upstream.url = "http://127.0.0.1:8002" (file)\n');
    expect(run.stdout).toContain('webui.upstream.paths = ["/api/webui"] (default)\n');
    expect(run.stdout).toContain('webui.upstream.headers = {Cookie: *** (from ${MAIBOT_TOKEN}), X-Extra: ***} (file)\n');
    expect(run.stdout).toContain('webui.upstream.timeout = 30 (default)\n');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/pw-in-|maibot_session/);
  });

  it('config check refuses an upstream header whose variable is unset, in one line naming the header, the variable and the file', () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, 'config'));
    writeFileSync(join(cwd, 'config', 'bot_config.toml'), '[webui.upstream.headers]\nCookie = "maibot_session=${MAIBOT_TOKEN}"\n');
    const run = webui(cwd, ['config', 'check'], { env: { WEBUI_UPSTREAM_URL: 'http://127.0.0.1:8002' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'webui: configuration error: config/bot_config.toml: webui.upstream.headers.Cookie reads the environment variable MAIBOT_TOKEN, ' +
        'which is not set (or is empty)\n',
    );
  });

  it('config check on a bad file exits 1 with one line naming the key and the file', () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, 'config'));
    writeFileSync(join(cwd, 'config', 'bot_config.toml'), '[webui]\nport = "eighty"\n');
    const run = webui(cwd, ['config', 'check']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/webui\.port/);
    expect(run.stderr).toMatch(/bot_config\.toml/);
  });

  it.each([[['bogus']], [['token']], [['token', 'frob']], [['setup', 'frob']], [['config']], [['--port']], [['serve', '--nope']]])(
    'usage error %j exits 2',
    (args) => {
      const run = webui(makeTempDir(), args);
      expect(run.code).toBe(2);
      expect(run.stderr.length).toBeGreaterThan(0);
    },
  );

  it('help prints the commands and exits 0', () => {
    const run = webui(makeTempDir(), ['help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/token show/);
    expect(run.stdout).toMatch(/config check/);
  });
});

describe('webui CLI while the server runs', () => {
  it('token set takes effect in the running server within a second or two: old cookie 401, new token verifies', async () => {
    const server = await startServer();
    const temporary = readWebuiFile(server.dataDir).access_token;
    const client = new HttpClient(server.baseUrl);
    expect((await client.post('/auth/verify', { body: { token: temporary } })).json).toMatchObject({ valid: true });
    expect((await client.get('/setup/status')).status).toBe(200);

    expect(webui(server.cwd, ['token', 'set'], { input: OTHER_STRONG_TOKEN }).code).toBe(0);
    await expect.poll(async () => (await client.get('/setup/status')).status, { timeout: 3_000, interval: 100 }).toBe(401);
    expect((await client.get('/setup/status')).status).toBe(401);
    const fresh = new HttpClient(server.baseUrl);
    expect((await fresh.post('/auth/verify', { body: { token: OTHER_STRONG_TOKEN } })).json).toMatchObject({
      valid: true,
      token_source: 'configured',
    });
    // The running server did not undo the CLI's write.
    expect(JSON.parse(readFileSync(join(server.dataDir, 'webui.json'), 'utf8')).access_token).toBe(OTHER_STRONG_TOKEN);
  });

  it('setup complete shows in the running server', async () => {
    const server = await startServer();
    const token = readWebuiFile(server.dataDir).access_token;
    const client = new HttpClient(server.baseUrl);
    expect(webui(server.cwd, ['setup', 'complete']).code).toBe(0);
    await expect
      .poll(async () => (await client.get('/setup/status', { cookie: `bot_session=${token}` })).json, { timeout: 3_000, interval: 100 })
      .toMatchObject({ is_first_setup: false });
  });
});
