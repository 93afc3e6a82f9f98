import 'reflect-metadata';
import { ChannelDomain, loadSettings, RouteGroup, StartupError, type ExtensionsSource } from '@webui/assembly';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createContainer, nodeParts, TOKENS } from '@webui/assembly/node';
import { serve, type RunningServer } from '@webui/assembly/node';
import { HttpClient } from '../harness/clients/http-client.js';
import { WsClient } from '../harness/clients/ws-client.js';

/** A bot's mounts on the real Node server, in-process on a real port: what reaches its handlers and its domains, and what never does. */

class Discard extends Writable {
  override _write(_chunk: unknown, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Keeps what the server writes to its process output. */
class Captured extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

async function serveWith(
  extensions: ExtensionsSource,
  output: Writable = new Discard(),
  env: Record<string, string> = {},
): Promise<{ running: RunningServer; port: number; token: string; dataDir: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'webui-mounts-'));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  const dataDir = join(cwd, 'data');
  const loaded = loadSettings({ argv: ['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], env, cwd });
  const container = createContainer(loaded).createChildContainer();
  container.register(TOKENS.LogDestination, { useValue: output });
  const running = await serve(nodeParts(container), { banner: new Discard(), extensions });
  cleanups.push(() => running.close());
  const token = (JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')) as { access_token: string }).access_token;
  return { running, port: running.listeners[0]!.port, token, dataDir };
}

/** The routes a bot mounts in these tests; every handler call is recorded, so a refusal proves it never ran. */
function recordingGroup(calls: string[]): RouteGroup {
  return new RouteGroup('/api/webui/config')
    .get('/bot', (c) => (calls.push('GET /bot'), c.json({ nickname: 'Mai' })))
    .put('/bot', (c, { principal, audit }) => {
      calls.push('PUT /bot');
      audit('config_updated', { section: 'bot' });
      return c.json({ by: principal?.kind });
    })
    .get('/secrets', { scope: 'admin' }, (c) => (calls.push('GET /secrets'), c.json({ api_key: 'sk-…' })))
    .get('/about', { public: true }, (c) => (calls.push('GET /about'), c.json({ name: 'bot' })));
}

async function openChannel(port: number, client: HttpClient, bearer: string): Promise<WsClient> {
  const ticket = await client.get('/ws-token', { headers: { authorization: `Bearer ${bearer}` } });
  const socket = new WebSocket(`ws://127.0.0.1:${port}/api/webui/ws?token=${ticket.json?.['token'] as string}`);
  const channel = new WsClient(socket);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  cleanups.push(() => channel.close());
  await channel.waitFor((message) => message['event'] === 'ready');
  return channel;
}

async function createKey(client: HttpClient, token: string, scope: 'read' | 'admin'): Promise<string> {
  const created = await client.post('/keys', { headers: { authorization: `Bearer ${token}` }, body: { name: `${scope}-key`, scope } });
  expect(created.status, created.text).toBe(200);
  return created.json?.['key'] as string;
}

describe("a bot's route group on the Node server", () => {
  it('reaches its handler only for callers the pipeline lets through', async () => {
    const calls: string[] = [];
    const { port, token, dataDir } = await serveWith({ routes: [recordingGroup(calls)] });
    const client = new HttpClient(`http://127.0.0.1:${port}`);
    const as = (credential: string) => ({ headers: { authorization: `Bearer ${credential}` } });

    expect((await client.get('/config/bot')).json).toMatchObject({ code: 'not_authenticated' });
    expect((await client.get('/config/nothing-here')).status).toBe(401); // unknown paths under a group: 401 before 404
    const reader = await createKey(client, token, 'read');
    expect((await client.request('PUT', '/config/bot', { ...as(reader), body: {} })).json).toMatchObject({ code: 'insufficient_scope' });
    expect((await client.get('/config/secrets', as(reader))).json).toMatchObject({ code: 'insufficient_scope', required: 'admin' });
    // A logged-in browser session, but the request comes from another site: CSRF refuses it before the handler.
    const browser = new HttpClient(`http://127.0.0.1:${port}`);
    expect((await browser.post('/auth/verify', { body: { token } })).status).toBe(200);
    const crossSite = await browser.request('PUT', '/config/bot', { body: {}, headers: { origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    // A foreign Host is refused by the edge even on a public route.
    expect((await client.get('/config/about', { headers: { host: 'evil.example' } })).status).toBeGreaterThanOrEqual(400);
    expect(calls).toEqual([]);

    // Five wrong bearers ban the address: the right one is then refused too.
    const banned = new HttpClient(`http://127.0.0.1:${port}`, { localAddress: '127.0.0.9' });
    for (let i = 0; i < 5; i++) await banned.get('/config/bot', as(`wrong-${i}`));
    expect((await banned.get('/config/bot', as(token))).status).toBe(429);
    expect(calls).toEqual([]);

    expect((await client.get('/config/about')).json).toEqual({ name: 'bot' });
    expect((await client.get('/config/bot', as(reader))).json).toEqual({ nickname: 'Mai' });
    expect((await client.get('/config/secrets', as(token))).status).toBe(200);
    expect((await client.request('PUT', '/config/bot', { ...as(token), body: {} })).json).toEqual({ by: 'token' });
    expect(calls).toEqual(['GET /about', 'GET /bot', 'GET /secrets', 'PUT /bot']);
    const audit = readFileSync(join(dataDir, 'audit.log'), 'utf8');
    expect(audit).toMatch(
      /"event":"bot_action".*"principal":"session".*"method":"PUT".*"path":"\/api\/webui\/config\/bot".*"action":"config_updated"/,
    );
  });

  it('refuses a mount that cannot work at startup, naming the path', async () => {
    const cases: Array<[ExtensionsSource, RegExp]> = [
      [{ routes: [new RouteGroup('/api/webui/auth').get('/extra', (c) => c.json({}))] }, /cannot mount \/api\/webui\/auth/],
      [{ routes: [new RouteGroup('/api/other').get('/x', (c) => c.json({}))] }, /cannot mount \/api\/other/],
      [
        {
          routes: [
            new RouteGroup('/api/webui/config').get('/a', (c) => c.json({})),
            new RouteGroup('/api/webui/config').get('/b', (c) => c.json({})),
          ],
        },
        /cannot mount \/api\/webui\/config/,
      ],
      [{ domains: [new ChannelDomain('chat'), new ChannelDomain('chat')] }, /cannot mount .*chat/],
      [{ domains: [new ChannelDomain('security')] }, /cannot mount .*security/],
    ];
    for (const [extensions, message] of cases) {
      const started = serveWith(extensions);
      await expect(started).rejects.toBeInstanceOf(StartupError);
      await expect(started).rejects.toThrow(message);
    }
  });

  it("stops the start with the bot's own StartupError", async () => {
    const refusing: ExtensionsSource = () => {
      throw new StartupError('bot.toml: bot.nickname: Invalid length');
    };
    await expect(serveWith(refusing)).rejects.toThrow('bot.toml: bot.nickname');
  });
});

describe("a bot's channel domain and log lines on the Node server", () => {
  it('publishes to its own subscribers only, holds its scope against a read key, and shows the bot in the logs', async () => {
    const chat: ChannelDomain = new ChannelDomain('chat', {
      calls: { send: { scope: 'read', handle: (data: unknown) => (chat.publish('main', 'message', data), { heard: data }) } },
    });
    const admin = new ChannelDomain('moderation', { scope: 'admin' });
    const { port, token } = await serveWith(({ logs }) => {
      logs.write({ level: 'warn', message: 'bot started', module: 'bot' });
      return { domains: [chat, admin] };
    });
    const client = new HttpClient(`http://127.0.0.1:${port}`);
    const reader = await createKey(client, token, 'read');
    const listener = await openChannel(port, client, reader);
    const bystander = await openChannel(port, client, token);

    expect(await listener.request({ op: 'subscribe', domain: 'chat', topic: 'main' })).toMatchObject({ ok: true });
    expect(await listener.request({ op: 'subscribe', domain: 'moderation', topic: 'main' })).toMatchObject({
      ok: false,
      error: { code: 'insufficient_scope' },
    });
    expect(await bystander.request({ op: 'subscribe', domain: 'moderation', topic: 'main' })).toMatchObject({ ok: true });
    const logs = await bystander.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 500 } });
    expect(logs).toMatchObject({ ok: true });
    const snapshot = await bystander.waitFor((message) => message['domain'] === 'logs' && message['event'] === 'snapshot');
    expect((snapshot['data'] as { entries: unknown[] }).entries).toContainEqual(
      expect.objectContaining({ module: 'bot', level: 'WARNING', message: 'bot started' }),
    );

    expect(await listener.request({ op: 'call', domain: 'chat', method: 'send', data: { text: 'hi' } })).toMatchObject({
      ok: true,
      data: { heard: { text: 'hi' } },
    });
    await listener.waitFor((message) => message['domain'] === 'chat' && message['event'] === 'message');
    admin.publish('main', 'alert', { level: 'high' });
    await bystander.waitFor((message) => message['domain'] === 'moderation' && message['event'] === 'alert');
    expect(bystander.events('chat', 'message')).toEqual([]);
    expect(listener.events('moderation', 'alert')).toEqual([]);
  });
});

describe("a bot's logger", () => {
  const SECRET = 'f'.repeat(64);
  /** A bot that logs from its start, from a route handler and from a channel call, once with a secret in the fields. */
  const loggingBot: ExtensionsSource = ({ log }) => {
    log.info('bot up');
    const chat = new ChannelDomain('chat', {
      calls: { send: { scope: 'read', handle: (_data: unknown, { log: callLog }) => (callLog.warn({ turn: 1 }, 'call line'), 'ok') } },
    });
    const routes = new RouteGroup('/api/webui/config').put('/bot', (c, { log: routeLog }) => {
      routeLog.info({ access_token: SECRET, changed: 'nickname' }, 'route line');
      return c.json({ ok: true });
    });
    return { routes: [routes], domains: [chat] };
  };

  async function exercise(port: number, token: string): Promise<unknown[]> {
    const client = new HttpClient(`http://127.0.0.1:${port}`);
    const put = await client.request('PUT', '/config/bot', { headers: { authorization: `Bearer ${token}` }, body: {} });
    expect(put.status, put.text).toBe(200);
    const channel = await openChannel(port, client, token);
    expect(await channel.request({ op: 'call', domain: 'chat', method: 'send', data: {} })).toMatchObject({ ok: true, data: 'ok' });
    expect(await channel.request({ op: 'subscribe', domain: 'logs', topic: 'main', data: { replay: 500 } })).toMatchObject({ ok: true });
    const snapshot = await channel.waitFor((message) => message['domain'] === 'logs' && message['event'] === 'snapshot');
    return (snapshot['data'] as { entries: unknown[] }).entries;
  }

  it('writes module "bot" lines to the log view and to the process output as JSON, redacted like the server\'s', async () => {
    const output = new Captured();
    const { port, token } = await serveWith(loggingBot, output, { WEBUI_LOG_FORMAT: 'json' });
    const entries = await exercise(port, token);
    for (const [level, message] of [
      ['INFO', 'bot up'],
      ['INFO', 'route line'],
      ['WARNING', 'call line'],
    ])
      expect(entries).toContainEqual(expect.objectContaining({ module: 'bot', level, message }));

    const lines = output.text
      .split('\n')
      .filter((line) => line.includes('"module":"bot"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line['msg'])).toEqual(['bot up', 'route line', 'call line']);
    expect(lines[1]).toMatchObject({ access_token: '[redacted]', changed: 'nickname', level: 30 });
    expect(lines[2]).toMatchObject({ turn: 1, level: 40 });
    expect(output.text).not.toContain(SECRET);
    expect(JSON.stringify(entries)).not.toContain(SECRET);
  });

  it('writes readable lines when the output is configured pretty', async () => {
    const output = new Captured();
    const { port, token } = await serveWith(loggingBot, output, { WEBUI_LOG_FORMAT: 'pretty' });
    await exercise(port, token);
    const routeLine = output.text.split('\n').find((line) => line.includes('route line'));
    expect(routeLine).toBeDefined();
    expect(routeLine).toContain('bot');
    expect(() => JSON.parse(routeLine as string)).toThrow();
    expect(output.text).toContain('call line');
    expect(output.text).not.toContain(SECRET);
  });
});
