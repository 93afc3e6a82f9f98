import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawExchange } from '../harness/clients/raw-exchange.js';
import { nodeRuntimePort } from '@webui/assembly/node';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real Node server whose one route answers what the Node runtime port reads. */
async function start(): Promise<number> {
  return listen(
    new Hono().all('/*', (c) => {
      const names = (c.req.query('names') ?? '').split(',');
      return c.json({
        peer: nodeRuntimePort.getConnInfo(c).remote.address ?? null,
        tls: nodeRuntimePort.isTls?.(c),
        headers: Object.fromEntries(names.map((name) => [name, nodeRuntimePort.readHeader?.(c, name) ?? null])),
      });
    }),
  );
}

/** Serves `app` on a real Node server through @hono/node-server, on a free port. */
async function listen(app: Hono): Promise<number> {
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function parse(answer: string): { headers: string; body: Record<string, unknown> } {
  const split = answer.indexOf('\r\n\r\n');
  return { headers: answer.slice(0, split).toLowerCase(), body: JSON.parse(answer.slice(split + 4)) as Record<string, unknown> };
}

describe("nodeRuntimePort (the app's runtime port on Node, with its speed-ups)", () => {
  it('reads headers by lower-case name without a web Request, and the peer address and TLS state', async () => {
    const port = await start();
    const { body } = parse(
      await rawExchange(
        port,
        'GET /?names=host,cookie,x-forwarded-for,origin HTTP/1.1\r\nHost: 127.0.0.1:8001\r\nCookie: a=1; ' +
          'bot_session=abc\r\nX-Forwarded-For: 203.0.113.9\r\n',
      ),
    );
    expect(body).toEqual({
      peer: '127.0.0.1',
      tls: false,
      headers: { host: '127.0.0.1:8001', cookie: 'a=1; bot_session=abc', 'x-forwarded-for': '203.0.113.9', origin: null },
    });
  });

  it(
    'joins a repeated Host, Content-Type or Authorization as a web Headers does, where Node itself would keep ' + 'only the first',
    async () => {
      const port = await start();
      const head =
        'GET /?names=host,content-type,authorization HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: evil.example\r\nContent-Type: ' +
        'application/json\r\nCONTENT-TYPE: text/plain\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n';
      const { body } = parse(await rawExchange(port, head));
      expect(body.headers).toEqual({
        host: '127.0.0.1, evil.example',
        'content-type': 'application/json, text/plain',
        authorization: 'Bearer a, Bearer b',
      });
    },
  );

  it('joins repeated forwarded hops with a comma and repeated cookies with a semicolon', async () => {
    const port = await start();
    const { body } = parse(
      await rawExchange(
        port,
        'GET /?names=x-forwarded-for,cookie HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: ' +
          '2.2.2.2\r\nCookie: a=1\r\nCookie: bot_session=abc\r\n',
      ),
    );
    expect(body.headers).toEqual({ 'x-forwarded-for': '1.1.1.1, 2.2.2.2', cookie: 'a=1; bot_session=abc' });
  });
});

describe('nodeRuntimePort.presetAnswerHeader (a header every answer carries, set on the ServerResponse)', () => {
  async function startPresetting(answer: (c: Context) => Response): Promise<number> {
    return listen(
      new Hono().all('/*', (c) => {
        expect(nodeRuntimePort.presetAnswerHeader?.(c, 'Cache-Control', 'no-store')).toBe(true);
        return answer(c);
      }),
    );
  }

  it('sends the preset header with an answer that does not set it', async () => {
    const port = await startPresetting((c) => c.json({ ok: true }, 200, { 'Retry-After': '5' }));
    const { headers, body } = parse(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    expect(headers).toContain('\r\ncache-control: no-store');
    expect(headers).toContain('\r\nretry-after: 5');
    expect(headers).toContain('\r\ncontent-type: application/json');
    expect(body).toEqual({ ok: true });
  });

  it("lets the answer's own value win, once: a static asset that chooses its own caching", async () => {
    const port = await startPresetting((c) => c.json({ ok: true }, 200, { 'Cache-Control': 'public, max-age=60' }));
    const { headers } = parse(await rawExchange(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    expect(headers).toContain('\r\ncache-control: public, max-age=60');
    expect(headers.match(/cache-control/g)).toHaveLength(1);
  });

  it('declines a request without a ServerResponse (a WebSocket upgrade), so the app sets it through Hono', () => {
    const upgrade = { env: { incoming: {} } } as unknown as Context;
    expect(nodeRuntimePort.presetAnswerHeader?.(upgrade, 'Cache-Control', 'no-store')).toBe(false);
  });
});
