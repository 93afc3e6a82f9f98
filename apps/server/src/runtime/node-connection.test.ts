import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawExchange } from '../../test/harness/raw-exchange.js';
import { nodeConnection } from './node-connection.js';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real Node server whose one route answers what nodeConnection reads, and presets a header when asked. */
async function start(): Promise<number> {
  const app = new Hono().all('/*', (c) => {
    const names = (c.req.query('names') ?? '').split(',');
    if (c.req.query('preset') !== undefined) nodeConnection.presetHeader?.(c, 'Cache-Control', 'no-store');
    if (c.req.query('own') !== undefined) c.header('Cache-Control', 'max-age=60');
    return c.json({ peer: nodeConnection.peerAddress(c) ?? null, tls: nodeConnection.isTls(c), headers: Object.fromEntries(names.map((name) => [name, nodeConnection.header?.(c, name) ?? null])) });
  });
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function parse(answer: string): { headers: string; body: Record<string, unknown> } {
  const split = answer.indexOf('\r\n\r\n');
  return { headers: answer.slice(0, split).toLowerCase(), body: JSON.parse(answer.slice(split + 4)) as Record<string, unknown> };
}

describe('nodeConnection (the Node fast paths behind ConnectionInfo)', () => {
  it('reads headers by lower-case name without a web Request, and the peer address and TLS state', async () => {
    const port = await start();
    const { body } = parse(await rawExchange(port, 'GET /?names=host,cookie,x-forwarded-for,origin HTTP/1.1\r\nHost: 127.0.0.1:8001\r\nCookie: a=1; bot_session=abc\r\nX-Forwarded-For: 203.0.113.9\r\n'));
    expect(body).toEqual({
      peer: '127.0.0.1',
      tls: false,
      headers: { host: '127.0.0.1:8001', cookie: 'a=1; bot_session=abc', 'x-forwarded-for': '203.0.113.9', origin: null },
    });
  });

  it('joins a repeated Host or Content-Type as a web Headers does, where Node itself would keep only the first', async () => {
    const port = await start();
    const { body } = parse(await rawExchange(port, 'GET /?names=host,content-type HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: evil.example\r\nContent-Type: application/json\r\nCONTENT-TYPE: text/plain\r\n'));
    expect(body.headers).toEqual({ host: '127.0.0.1, evil.example', 'content-type': 'application/json, text/plain' });
  });

  it('joins repeated forwarded hops with a comma and repeated cookies with a semicolon', async () => {
    const port = await start();
    const { body } = parse(await rawExchange(port, 'GET /?names=x-forwarded-for,cookie HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 2.2.2.2\r\nCookie: a=1\r\nCookie: bot_session=abc\r\n'));
    expect(body.headers).toEqual({ 'x-forwarded-for': '1.1.1.1, 2.2.2.2', cookie: 'a=1; bot_session=abc' });
  });

  it('presets a response header that the answer carries, and that an answer setting its own overrides', async () => {
    const port = await start();
    expect(parse(await rawExchange(port, 'GET /?preset HTTP/1.1\r\nHost: 127.0.0.1\r\n')).headers).toContain('cache-control: no-store');
    const own = parse(await rawExchange(port, 'GET /?preset&own HTTP/1.1\r\nHost: 127.0.0.1\r\n')).headers;
    expect(own).toContain('cache-control: max-age=60');
    expect(own).not.toContain('no-store');
    expect(parse(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n')).headers).not.toContain('cache-control');
  });

  it('cannot preset a header on a WebSocket upgrade, which has no ServerResponse, and says so', async () => {
    const app = new Hono().get('/', (c) => c.json({ preset: nodeConnection.presetHeader?.(c, 'Cache-Control', 'no-store') }));
    const res = await app.request('/', {}, { incoming: { headers: {}, rawHeaders: [] }, outgoing: undefined });
    expect(await res.json()).toEqual({ preset: false });
  });
});
