import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createWebuiClient } from './index.js';
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
});
