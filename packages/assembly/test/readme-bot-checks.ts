import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import { Channel } from '../../../examples/bot/test/example-bot-checks.js';

/** The bot of docs/extending.md, compiled for one runtime: `import { serveWebui } from '@webui/assembly/<runtime>'`. */
export function botFor(source: string, runtime: 'node' | 'bun' | 'deno'): string {
  const forNode = "from '@webui/assembly/node'";
  if (!source.includes(forNode)) throw new Error(`the bot of docs/extending.md no longer imports ${forNode}`);
  return source.replace(forNode, `from '@webui/assembly/${runtime}'`);
}

/** Lines of code as the issue counts them: blank lines not. */
export const codeLines = (source: string): number => source.split('\n').filter((line) => line.trim() !== '').length;

/**
 * What the bot of docs/extending.md promises, over real sockets: a login, its mounted route behind it (and its
 * validated body), its chat call and event on the channel, and its log lines in the log view and the process output.
 */
export async function checkReadmeBot(port: number, dataDir: string, stdout: () => string): Promise<void> {
  const base = `http://127.0.0.1:${port}/api/webui`;
  const { access_token: token } = JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')) as { access_token: string };
  const json = { 'content-type': 'application/json' };
  const bearer = { authorization: `Bearer ${token}` };

  // The login: the token becomes a session cookie, which the mounted route takes.
  expect((await fetch(`${base}/config/bot`)).status).toBe(401);
  const login = await fetch(`${base}/auth/verify`, { method: 'POST', headers: json, body: JSON.stringify({ token }) });
  expect(login.status).toBe(200);
  const cookie = login.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  expect(cookie).toMatch(/^bot_session=./);
  const read = await fetch(`${base}/config/bot`, { headers: { cookie } });
  expect({ status: read.status, body: await read.json() }).toEqual({ status: 200, body: { nickname: 'Mai' } });

  // The body is the bot's valibot schema: refused with 422 before the handler runs, taken when it fits.
  const put = (body: unknown) =>
    fetch(`${base}/config/bot`, { method: 'PUT', headers: { ...json, ...bearer }, body: JSON.stringify(body) });
  const refused = await put({ nickname: '' });
  expect({ status: refused.status, body: await refused.json() }).toMatchObject({ status: 422, body: { code: 'invalid_body' } });
  const replaced = await put({ nickname: 'Zed' });
  expect({ status: replaced.status, body: await replaced.json() }).toEqual({ status: 200, body: { nickname: 'Zed' } });

  // The channel: the chat call answers and publishes its event; the bot's lines are in the log view.
  const ticket = (await (await fetch(`${base}/ws-token`, { headers: bearer })).json()) as { token: string };
  const channel = await Channel.open(`ws://127.0.0.1:${port}/api/webui/ws?token=${ticket.token}`);
  try {
    await channel.next((frame) => frame.event === 'ready');
    channel.send({ op: 'subscribe', id: 'chat', domain: 'chat', topic: 'main' });
    await channel.next((frame) => frame.id === 'chat' && frame.ok === true);
    channel.send({ op: 'call', id: 'say', domain: 'chat', method: 'send', data: { text: 'hello' } });
    expect(await channel.next((frame) => frame.id === 'say')).toMatchObject({ ok: true, data: { sent: true } });
    const event = await channel.next((frame) => frame.domain === 'chat' && frame.event === 'message');
    expect(event.data).toEqual({ from: 'Zed', text: 'hello' });

    channel.send({ op: 'subscribe', id: 'logs', domain: 'logs', topic: 'main', data: { replay: 500 } });
    const snapshot = await channel.next((frame) => frame.domain === 'logs' && frame.event === 'snapshot');
    for (const message of ['settings replaced', 'chat message sent'])
      expect(snapshot.data?.['entries']).toContainEqual(expect.objectContaining({ module: 'bot', level: 'INFO', message }));
  } finally {
    channel.close();
  }
  // And in the process output, as JSON lines (not a terminal).
  await vi.waitFor(() => {
    const lines = stdout()
      .split('\n')
      .filter((line) => line.includes('"module":"bot"'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(lines).toEqual(['settings replaced', 'chat message sent']);
  });
}
