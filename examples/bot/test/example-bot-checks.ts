import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { expect } from 'vitest';
import { WebSocket } from 'ws';

/** What the tests write as bot.toml before the bot starts: a [bot] table, and one of the operator's that no write may lose. */
export const STARTING_BOT_TOML = `# the operator's own notes stay too
[bot]
nickname = "Before"
greeting = "Hi there"
reply_probability = 0.5

[owner]
name = "ops"
`;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

type Frame = { op: string; id?: string; ok?: boolean; domain?: string; topic?: string; event?: string; data?: Record<string, unknown> };

/** A WebSocket that keeps every frame, so a test waits for the one it expects whatever came before it. */
export class Channel {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static open(url: string): Promise<Channel> {
    const socket = new WebSocket(url);
    const channel = new Channel(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(channel));
      socket.once('error', reject);
    });
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** The first frame (from `from` on) that `matches`; waits for it. */
  async next(matches: (frame: Frame) => boolean, from = 0): Promise<Frame> {
    for (;;) {
      const found = this.frames.slice(from).find(matches);
      if (found) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): void {
    this.socket.close(1000);
  }
}

/**
 * Everything the example bot promises, against a running bot: its routes behind the login (read and admin scope,
 * one public route), its TOML section written atomically, the chat domain's call and events, its log lines and its
 * plugin progress on the channel, and the audit line of a change.
 */
export async function checkExampleBot(port: number, dataDir: string, runtime: string): Promise<void> {
  const base = `http://127.0.0.1:${port}/api/webui`;
  const { access_token: token } = JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')) as { access_token: string };
  const call = async (method: string, path: string, bearer?: string, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (bearer) headers['authorization'] = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const tomlPath = join(dataDir, 'bot.toml');

  // Mounted routes need a login unless declared public.
  expect(await call('GET', '/config/bot')).toMatchObject({ status: 401, body: { code: 'not_authenticated' } });
  expect(await call('GET', '/system/status')).toMatchObject({ status: 401 });
  expect(await call('GET', '/system/version')).toEqual({ status: 200, body: { version: '0.1.0' } });
  expect(await call('GET', '/config/bot', token)).toEqual({
    status: 200,
    body: { nickname: 'Before', greeting: 'Hi there', reply_probability: 0.5 },
  });

  // A read key reads, and may not change anything.
  const created = await call('POST', '/keys', token, { name: 'reader', scope: 'read' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const readKey = created.body['key'] as string;
  expect(await call('GET', '/system/status', readKey)).toMatchObject({ status: 200, body: { running: true, runtime } });
  expect(await call('PUT', '/config/bot', readKey, { nickname: 'Nope', greeting: '', reply_probability: 0 })).toMatchObject({
    status: 403,
    body: { code: 'insufficient_scope' },
  });
  expect(await call('PUT', '/config/bot', token, { nickname: 'Mai', greeting: 'Hi', reply_probability: 2 })).toMatchObject({
    status: 422,
    body: { code: 'invalid_body' },
  });
  // Neither refused write touched the file.
  expect(readFileSync(tomlPath, 'utf8')).toBe(STARTING_BOT_TOML);

  // The channel: the bot's log lines, its chat domain, its plugin progress.
  const ticket = await call('GET', '/ws-token', token);
  const channel = await Channel.open(`ws://127.0.0.1:${port}/api/webui/ws?token=${ticket.body['token'] as string}`);
  try {
    await channel.next((frame) => frame.event === 'ready');
    channel.send({ op: 'subscribe', id: 'logs', domain: 'logs', topic: 'main', data: { replay: 500 } });
    const snapshot = await channel.next((frame) => frame.domain === 'logs' && frame.event === 'snapshot');
    expect(snapshot.data?.['entries']).toEqual(
      expect.arrayContaining([expect.objectContaining({ module: 'bot', level: 'INFO', message: 'example bot started' })]),
    );

    const changed = await call('PUT', '/config/bot', token, { nickname: 'Mai', greeting: 'Hi', reply_probability: 0.25 });
    expect(changed).toEqual({ status: 200, body: { nickname: 'Mai', greeting: 'Hi', reply_probability: 0.25 } });
    expect(parse(readFileSync(tomlPath, 'utf8'))).toEqual({
      bot: { nickname: 'Mai', greeting: 'Hi', reply_probability: 0.25 },
      owner: { name: 'ops' },
    });
    expect(statSync(tomlPath).mode & 0o777).toBe(0o600);
    await channel.next(
      (frame) => frame.event === 'entry' && (frame.data?.['entry'] as { message?: string }).message === 'bot settings updated',
    );
    const audit = readFileSync(join(dataDir, 'audit.log'), 'utf8');
    expect(audit).toMatch(/"event":"bot_action".*"action":"config_updated"/);

    channel.send({ op: 'subscribe', id: 'chat', domain: 'chat', topic: 'main' });
    await channel.next((frame) => frame.id === 'chat' && frame.ok === true);
    const mark = channel.frames.length;
    channel.send({ op: 'call', id: 'say', domain: 'chat', method: 'send', data: { text: 'hello' } });
    expect(await channel.next((frame) => frame.id === 'say', mark)).toMatchObject({ ok: true, data: { reply: 'Mai heard: hello' } });
    await channel.next((frame) => frame.domain === 'chat' && frame.event === 'message' && frame.data?.['from'] === 'Mai', mark);
    channel.send({ op: 'call', id: 'empty', domain: 'chat', method: 'send', data: { text: '' } });
    expect(await channel.next((frame) => frame.id === 'empty', mark)).toMatchObject({ ok: false });

    channel.send({ op: 'subscribe', id: 'progress', domain: 'plugin_progress', topic: 'main' });
    await channel.next((frame) => frame.domain === 'plugin_progress' && frame.event === 'snapshot');
    expect(await call('POST', '/plugins/reload', token)).toEqual({ status: 200, body: { reloaded: 3 } });
    const done = await channel.next(
      (frame) => frame.domain === 'plugin_progress' && (frame.data?.['progress'] as { stage?: string }).stage === 'success',
    );
    expect(done.data?.['progress']).toMatchObject({ progress: 100, loaded_plugins: 3 });
  } finally {
    channel.close();
  }
}
