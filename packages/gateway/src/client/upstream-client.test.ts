import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { webUpstreamClient } from './upstream-client.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function upstreamAnswering(body: Buffer, headers: Record<string, string>): Promise<string> {
  server = createServer((_req, res) => res.writeHead(200, headers).end(body));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('webUpstreamClient (Bun, Deno: the global fetch)', () => {
  it('passes a body fetch decoded without the headers that said it was coded', async () => {
    const json = Buffer.from('{"ok":true}');
    const origin = await upstreamAnswering(gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const answer = await webUpstreamClient({ origin }).transport(new Request(`${origin}/x`));
    expect(answer.headers.get('content-encoding')).toBeNull();
    expect(answer.headers.get('content-length')).toBeNull();
    expect(await answer.text()).toBe('{"ok":true}');
  });

  it('leaves an uncoded answer as it came', async () => {
    const origin = await upstreamAnswering(Buffer.from('plain'), { 'content-type': 'text/plain', 'content-length': '5' });
    const answer = await webUpstreamClient({ origin }).transport(new Request(`${origin}/x`));
    expect(answer.headers.get('content-length')).toBe('5');
    expect(await answer.text()).toBe('plain');
  });

  it('refuses a Unix socket upstream at startup, naming webui.upstream.url', () => {
    expect(() => webUpstreamClient({ origin: 'http://localhost', socketPath: '/run/bot.sock' })).toThrow(
      /webui\.upstream\.url unix:\/run\/bot\.sock/,
    );
  });
});
