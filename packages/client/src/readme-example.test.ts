import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createWebuiClient, type WebuiClient } from './index.js';
import { loginFromAnotherAddress, rotateTokenBehindTheBack, startWebuiServer, type WebuiServer } from './testing/webui-server.js';

/** The script of README.md, line for line (the test below checks that they stay the same). */
async function readmeScript(): Promise<void> {
  // readme-example:start
  const client = createWebuiClient({
    baseUrl: process.env.WEBUI_URL ?? 'http://127.0.0.1:8001',
    token: process.env.WEBUI_TOKEN,
    WebSocket,
  });
  const login = await client.login();
  if (!login.valid) throw new Error(login.message);
  console.log(await client.check());
  if ((await client.setupStatus()).is_first_setup) await client.completeSetup();
  const channel = await client.openChannel();
  channel.on('logs', 'snapshot', ({ entries }) => console.log(`${entries.length} recent log entries`));
  channel.on('logs', 'entry', ({ entry }) => console.log(`${entry.timestamp} ${entry.level} ${entry.message}`));
  await channel.subscribe('logs', 'main', { replay: 20 });
  console.log('log stream closed', (await channel.closed).code);
  // readme-example:end
}

/** The API keys example of README.md, line for line, with its `baseUrl` and `token` given. */
async function readmeKeyScript(baseUrl: string, token: string): Promise<void> {
  // readme-keys:start
  // Once, logged in with the access token: a read-only key for a monitoring script, shown only in this answer.
  const admin = createWebuiClient({ baseUrl, token });
  const { key } = await admin.createKey({ name: 'monitor', scope: 'read', expires: '90d' });
  // In the monitoring script: the key on every request, no login, no cookie.
  const monitor = createWebuiClient({ baseUrl, apiKey: key, WebSocket });
  console.log(
    (await monitor.check()).authenticated,
    (await monitor.listKeys()).map((entry) => `${entry.name} ${entry.scope} ${entry.expires_at ?? 'never'}`),
  );
  const channel = await monitor.openChannel();
  await channel.subscribe('logs', 'main', { replay: 0 });
  // Revoked, the key is refused from its next request on, and its channel closes (4001).
  await admin.revokeKey('monitor');
  console.log('channel closed', (await channel.closed).code);
  // readme-keys:end
}

/** The token-changing example of README.md, line for line, with its `client` and `tokenFile` given. */
async function readmeRotateScript(client: WebuiClient, tokenFile: string): Promise<void> {
  // readme-rotate:start
  const { token: newToken, loggedIn, loginError } = await client.regenerateToken();
  // First of all: the old token is refused from now on, and the server shows this one nowhere else.
  await writeFile(tokenFile, `${newToken}\n`, { mode: 0o600 });
  // Not logged in again? The client keeps the token and logs in by itself on the next call.
  if (!loggedIn) console.warn(`not logged in again yet: ${loginError?.message}`);
  console.log((await client.setupStatus()).token_source);
  // readme-rotate:end
}

/** The cancelling example of README.md, line for line, with its `client` given. */
async function readmeCancelScript(client: WebuiClient): Promise<void> {
  // readme-cancel:start
  // A slow answer is given up after 5 seconds instead of the client's 30 (a DOMException named TimeoutError).
  console.log((await client.listBans({ signal: AbortSignal.timeout(5_000) })).length, 'client keys in the ban list');
  // Ctrl-C ends the log stream: the channel closes with 1000 and the script goes on.
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const channel = await client.openChannel({ signal: stop.signal });
  channel.on('logs', 'entry', ({ entry }) => console.log(entry.message));
  await channel.subscribe('logs', 'main', { replay: 0 });
  console.log('following the log stream; Ctrl-C to stop');
  console.log('log stream closed', (await channel.closed).code);
  // readme-cancel:end
}

/** The ```ts block of the README that holds `marker`, and the lines between `name`:start and `name`:end here. */
function readmeAndCopy(marker: string, name: string): [string, string] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').find((code) => code.includes(marker)) ?? '';
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const copy = new RegExp(`// ${name}:start\n([\\s\\S]*?)// ${name}:end`).exec(source)?.[1] ?? 'missing';
  return [block, copy];
}

function codeLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('import '));
}

describe('the README script', () => {
  let server: WebuiServer;

  beforeAll(async () => {
    server = await startWebuiServer();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    await server?.stop();
  });

  it('is the code this test runs', () => {
    for (const [marker, name] of [
      ['token: process.env.WEBUI_TOKEN', 'readme-example'],
      ['apiKey: key', 'readme-keys'],
      ['regenerateToken()', 'readme-rotate'],
      ["process.once('SIGINT'", 'readme-cancel'],
    ] as const) {
      const [block, copy] = readmeAndCopy(marker, name);
      expect(codeLines(block).length, name).toBeGreaterThan(5);
      expect(codeLines(block), name).toEqual(codeLines(copy));
    }
  });

  it('logs in, checks, completes setup and follows the log stream until the token changes', async () => {
    vi.stubEnv('WEBUI_URL', server.baseUrl);
    vi.stubEnv('WEBUI_TOKEN', server.token());
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation(
      (...args: unknown[]) => void printed.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ')),
    );

    const running = readmeScript();
    await vi.waitFor(() => expect(printed.some((line) => line.endsWith('recent log entries'))).toBe(true), { timeout: 5_000 });
    expect(printed[0]).toBe(JSON.stringify({ authenticated: true, token_source: 'temporary', requires_custom_token: true }));
    expect(server.webuiFile()['first_setup_completed']).toBe(true);

    // Live entries follow: a login from a new address is logged and reaches the script.
    expect(await loginFromAnotherAddress(server, '127.0.0.22')).toBe(200);
    await vi.waitFor(() => expect(printed.some((line) => / INFO login succeeded$/.test(line))).toBe(true), { timeout: 5_000 });

    // Someone else changes the token: the server closes the stream with 4001 and the script ends.
    await rotateTokenBehindTheBack(server);
    await running;
    expect(printed.at(-1)).toBe('log stream closed 4001');
  });

  it('makes a read key, uses it with no login and no cookie, and revokes it: its channel closes with 4001', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation(
      (...args: unknown[]) => void printed.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ')),
    );
    await readmeKeyScript(server.baseUrl, server.token());
    expect(printed).toEqual([expect.stringMatching(/^true \["monitor read \d{4}-\d\d-\d\dT[\d:.]+Z"\]$/), 'channel closed 4001']);
    expect(server.webuiFile()['api_keys']).toEqual([]);
  });

  it('cancels with signals: a bounded call, and a log stream Ctrl-C closes with 1000', async () => {
    const printed = capturedLog();
    const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token(), WebSocket });
    const earlier = process.listeners('SIGINT');
    const running = readmeCancelScript(client);
    await vi.waitFor(() => expect(printed).toContain('following the log stream; Ctrl-C to stop'), { timeout: 5_000 });
    // Ctrl-C, as the script's own SIGINT listener gets it (vitest's listeners are left alone).
    const added = process.listeners('SIGINT').filter((listener) => !earlier.includes(listener));
    expect(added).toHaveLength(1);
    process.removeListener('SIGINT', added[0] as () => void);
    (added[0] as () => void)();
    await running;
    expect(printed[0]).toMatch(/^\d+ client keys in the ban list$/);
    expect(printed.at(-1)).toBe('log stream closed 1000');
  });

  it('regenerates the token and stores it before anything else', async () => {
    const printed = capturedLog();
    const dir = mkdtempSync(join(tmpdir(), 'webui-readme-token-'));
    try {
      const client = createWebuiClient({ baseUrl: server.baseUrl, token: server.token() });
      await readmeRotateScript(client, join(dir, 'token'));
      expect(readFileSync(join(dir, 'token'), 'utf8')).toBe(`${server.token()}\n`);
      expect(printed).toEqual(['configured']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every console.log line of the test, as the script printed it. */
function capturedLog(): string[] {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(
    (...args: unknown[]) => void printed.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ')),
  );
  return printed;
}
