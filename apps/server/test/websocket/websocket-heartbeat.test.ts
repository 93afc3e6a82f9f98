import 'reflect-metadata';
import { IDLE_PROGRESS, type PluginProgress } from '@webui/http-hono';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { type ClientOptions } from 'ws';
import { loadSettings } from '@webui/assembly';
import { createContainer, nodeParts, TOKENS } from '@webui/assembly/node';
import { serve, type RunningServer } from '@webui/assembly/node';
import { HttpClient } from '../harness/clients/http-client.js';
import { eventually } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/** The server in-process, with a 100 ms heartbeat, so liveness and the progress port can be driven directly. */

const HEARTBEAT_MS = 100;

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
  lines(): Array<Record<string, unknown>> {
    return this.text
      .split('\n')
      .filter((line) => line.trim().startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

interface Started {
  running: RunningServer;
  log: Sink;
  baseUrl: string;
  dataDir: string;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(config = ''): Promise<Started> {
  const cwd = mkdtempSync(join(tmpdir(), 'webui-hb-'));
  cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
  const dataDir = join(cwd, 'data');
  if (config) {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(cwd, 'config'));
    writeFileSync(join(cwd, 'config', 'bot_config.toml'), config);
  }
  const loaded = loadSettings({ argv: ['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], env: {}, cwd });
  const log = new Sink();
  // The Node composition root, with the heartbeat and the log destination swapped in a child container.
  const container = createContainer(loaded).createChildContainer();
  container.register(TOKENS.HeartbeatMs, { useValue: HEARTBEAT_MS });
  container.register(TOKENS.LogDestination, { useValue: log });
  const running = await serve(nodeParts(container), { banner: new Sink() });
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await running.close();
  });
  const listener = running.listeners[0];
  if (!listener) throw new Error('no listener');
  const close = running.close.bind(running);
  running.close = async () => {
    closed = true;
    await close();
  };
  return { running, log, baseUrl: `http://127.0.0.1:${listener.port}`, dataDir };
}

async function ticket(started: Started): Promise<string> {
  const http = new HttpClient(started.baseUrl);
  const token = readWebuiFile(started.dataDir).access_token;
  expect((await http.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  const answer = await http.get('/ws-token');
  return String(answer.json?.['token']);
}

type Message = Record<string, unknown>;

async function connect(started: Started, options: ClientOptions = {}) {
  const socket = new WebSocket(`${started.baseUrl.replace('http', 'ws')}/api/webui/ws?token=${await ticket(started)}`, options);
  const messages: Message[] = [];
  // Counted from the start: under load the first heartbeat can come before connect() returns.
  const pings = { count: 0 };
  socket.on('ping', () => pings.count++);
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as Message));
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    socket.once('close', (code: number) => resolve({ code, at: Date.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: ${res.statusCode}`)));
  });
  await eventually(() => messages.some((message) => message['event'] === 'ready'), 2_000, 'ready');
  cleanups.push(() => socket.terminate());
  return { socket, messages, closed, pings };
}

describe('server heartbeat', () => {
  it('a client that stops answering pings is closed within ~3 heartbeats; a normal client stays open', async () => {
    const started = await start();
    const healthy = await connect(started);
    const mute = await connect(started, { autoPong: false });
    expect(started.running.webui.hub.size).toBe(2);
    // Heartbeats are counted, not timed: every beat pings the healthy client too.
    const beatsBefore = healthy.pings.count;

    await Promise.race([
      mute.closed,
      new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('the mute client was not closed')), 3_000)),
    ]);
    expect(healthy.pings.count - beatsBefore).toBeLessThanOrEqual(3);
    expect(mute.pings.count).toBeGreaterThanOrEqual(1);
    await eventually(() => started.running.webui.hub.size === 1, 5_000, 'the hub drops the dead socket');

    // Many heartbeats later the answering client is still there and served.
    const beatsAtClose = healthy.pings.count;
    await eventually(() => healthy.pings.count >= beatsAtClose + 6, 5_000, 'six more heartbeats');
    expect(healthy.socket.readyState).toBe(WebSocket.OPEN);
    healthy.socket.send(JSON.stringify({ op: 'ping' }));
    await eventually(() => healthy.messages.some((message) => message['op'] === 'pong'), 2_000, 'pong');
    expect(started.running.webui.hub.size).toBe(1);
  });

  it('a client that answers pings but sends nothing stays open', async () => {
    const started = await start();
    const idle = await connect(started);
    // Eight heartbeats, counted by their pings: each found the client alive, so none closed it.
    await eventually(() => idle.pings.count >= 8, 5_000, 'eight heartbeats');
    expect(idle.pings.count).toBeGreaterThanOrEqual(3);
    expect(idle.socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe('plugin progress port', () => {
  it('subscribers get an idle snapshot, then every update published through webui.progress; late subscribers see the latest', async () => {
    const started = await start();
    const first = await connect(started);
    const second = await connect(started);
    for (const client of [first, second]) {
      client.socket.send(JSON.stringify({ op: 'subscribe', id: 'pp', domain: 'plugin_progress', topic: 'main' }));
      await eventually(() => client.messages.some((message) => message['event'] === 'snapshot'), 2_000, 'snapshot');
      expect(client.messages.slice(1)).toEqual([
        { op: 'response', id: 'pp', ok: true, data: { domain: 'plugin_progress', topic: 'main' } },
        { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'snapshot', data: { progress: IDLE_PROGRESS } },
      ]);
    }
    const step: PluginProgress = {
      ...IDLE_PROGRESS,
      operation: 'install',
      stage: 'loading',
      progress: 50,
      message: 'installing',
      plugin_id: 'weather',
      total_plugins: 1,
    };
    const done: PluginProgress = { ...step, stage: 'success', progress: 100, loaded_plugins: 1 };
    started.running.webui.progress.publish(step);
    started.running.webui.progress.publish(done);
    for (const client of [first, second]) {
      await eventually(() => client.messages.filter((message) => message['event'] === 'update').length === 2, 2_000, 'two updates');
      expect(client.messages.filter((message) => message['event'] === 'update')).toEqual([
        { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'update', data: { progress: step } },
        { op: 'event', domain: 'plugin_progress', topic: 'main', event: 'update', data: { progress: done } },
      ]);
    }
    const late = await connect(started);
    late.socket.send(JSON.stringify({ op: 'subscribe', id: 1, domain: 'plugin_progress', topic: 'main' }));
    await eventually(() => late.messages.some((message) => message['event'] === 'snapshot'), 2_000, 'snapshot');
    expect(late.messages.find((message) => message['event'] === 'snapshot')).toMatchObject({ data: { progress: done } });
  });
});

describe('log port', () => {
  it('the logger`s trace and fatal lines reach a subscriber as DEBUG and CRITICAL, the only names the dashboard filters on', async () => {
    const started = await start('[webui]\nlog_level = "trace"\n');
    const client = await connect(started);
    client.socket.send(JSON.stringify({ op: 'subscribe', id: 'ws-1732350000000-1', domain: 'logs', topic: 'main', data: { replay: 0 } }));
    await eventually(() => client.messages.some((message) => message['event'] === 'snapshot'), 2_000, 'snapshot');
    const plugins = started.running.logger.child({ module: 'plugins' });
    plugins.trace({}, 'a trace line');
    plugins.fatal({}, 'a fatal line');
    const entries = () =>
      client.messages.filter((message) => message['event'] === 'entry').map((message) => (message['data'] as { entry: Message }).entry);
    await eventually(() => entries().some((entry) => entry['message'] === 'a fatal line'), 2_000, 'the fatal line');
    expect(entries().filter((entry) => entry['module'] === 'plugins')).toEqual([
      {
        id: expect.stringMatching(/^\d{13}_\d{12}$/),
        timestamp: expect.any(String),
        level: 'DEBUG',
        module: 'plugins',
        message: 'a trace line',
      },
      {
        id: expect.stringMatching(/^\d{13}_\d{12}$/),
        timestamp: expect.any(String),
        level: 'CRITICAL',
        module: 'plugins',
        message: 'a fatal line',
      },
    ]);
    // pino wrote them as trace (10) and fatal (60): the mapping happens on the way to the dashboard only.
    expect(
      started.log
        .lines()
        .filter((line) => line['module'] === 'plugins')
        .map((line) => line['level']),
    ).toEqual([10, 60]);
  });
});

describe('close()', () => {
  it('closes every socket with 1001 promptly and stops accepting', async () => {
    const started = await start();
    const a = await connect(started);
    const b = await connect(started);
    const began = Date.now();
    await started.running.close();
    const [closeA, closeB] = await Promise.all([a.closed, b.closed]);
    expect(closeA.code).toBe(1001);
    expect(closeB.code).toBe(1001);
    expect(Date.now() - began).toBeLessThan(1_500);
    await expect(new HttpClient(started.baseUrl).get('/health')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('the log stream carries the server`s own log lines to a subscriber', async () => {
    const started = await start('[webui]\nlog_level = "debug"\n');
    const client = await connect(started);
    client.socket.send(JSON.stringify({ op: 'subscribe', id: 1, domain: 'logs', topic: 'main', data: { replay: 0 } }));
    await eventually(() => client.messages.some((message) => message['event'] === 'snapshot'), 2_000, 'snapshot');
    started.running.logger.child({ module: 'plugins' }).warn({}, 'hello from a module');
    await eventually(() => client.messages.some((message) => message['event'] === 'entry'), 2_000, 'entry');
    expect(client.messages.find((message) => message['event'] === 'entry')).toMatchObject({
      data: { entry: { id: expect.stringMatching(/^\d+_\d+$/), level: 'WARNING', module: 'plugins', message: 'hello from a module' } },
    });
    expect(started.log.lines().some((line) => line['msg'] === 'hello from a module')).toBe(true);
  });
});
