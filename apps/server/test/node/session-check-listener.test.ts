import { getRequestListener } from '@hono/node-server';
import { SESSION_CHECK_TARGET, type PlainRequest } from '@webui/http-hono';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../harness/clients/raw-exchange.js';
import { withSessionCheckShortcut } from '@webui/assembly/node';

const SHORTCUT_BODY = '{"by":"shortcut"}';

let server: Server;
let port: number;
const taken: PlainRequest[] = [];

// The real @hono/node-server behind the shortcut, with an app that says it answered.
beforeAll(async () => {
  const app = getRequestListener(() => new Response('{"by":"app"}'));
  const shortcut = (request: PlainRequest) => {
    taken.push(request);
    return Promise.resolve({ status: 200, headers: {}, body: SHORTCUT_BODY });
  };
  server = createServer(withSessionCheckShortcut(shortcut, app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const answerTo = async (hostLines: string): Promise<{ status: string; body: string }> => {
  const raw = await rawExchange(port, `GET ${SESSION_CHECK_TARGET} HTTP/1.1\r\n${hostLines}`);
  return { status: raw.split(' ')[1] ?? '', body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
};

// Host values built from the pieces that matter to URL parsing: names, numbers, brackets, ports, case.
const hostArbitrary = fc.oneof(
  fc.constantFrom(
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.1',
    '[::1]',
    '[0::1]',
    '[::ffff:127.0.0.1]',
    'example.org.',
    'a.123',
    'a.0x1f',
    'xn--zz',
    '::1',
    '',
  ),
  fc.stringMatching(/^[a-zA-Z0-9.\-[\]:]{1,24}$/),
  fc
    .tuple(fc.stringMatching(/^[a-z0-9.-]{1,12}$/), fc.constantFrom('', ':8001', ':80', ':0', ':65535', ':65536', ':', ':08'))
    .map(([name, port]) => `${name}${port}`),
);

describe('the Node /auth/check shortcut in front of @hono/node-server', () => {
  it('takes only requests @hono/node-server would take itself: a Host it refuses gets its answer, never ours', async () => {
    await fc.assert(
      fc.asyncProperty(hostArbitrary, async (host) => {
        taken.length = 0;
        const viaShortcut = await answerTo(`Host: ${host}\r\n`);
        if (viaShortcut.body === SHORTCUT_BODY) {
          // The same Host on another target goes through node-server: it must accept it too.
          const raw = await rawExchange(port, `GET /elsewhere HTTP/1.1\r\nHost: ${host}\r\n`);
          expect(raw.split(' ')[1], host).toBe('200');
          expect(taken.map((request) => request.header('host'))).toEqual([host]);
        }
      }),
      // A fixed seed: npm test passes or fails the same way on every run.
      { seed: 1_717, numRuns: 300 },
    );
  });

  it('answers the canonical Hosts browsers send, and leaves two Host lines or none to node-server', async () => {
    for (const host of ['127.0.0.1:8001', 'localhost:8001', '[::1]:8001'])
      expect((await answerTo(`Host: ${host}\r\n`)).body, host).toBe(SHORTCUT_BODY);
    expect(await answerTo('Host: 127.0.0.1:8001\r\nHost: evil.example\r\n')).not.toMatchObject({ body: SHORTCUT_BODY });
    expect((await answerTo('')).status).toBe('400');
  });

  it('leaves an absolute-form target to the app, with or without userinfo: the app refuses the userinfo (issue 42)', async () => {
    taken.length = 0;
    for (const target of [`http://127.0.0.1:8001${SESSION_CHECK_TARGET}`, `http://user:secret@127.0.0.1:8001${SESSION_CHECK_TARGET}`]) {
      const raw = await rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:8001\r\n`);
      expect(raw.slice(raw.indexOf('\r\n\r\n') + 4), target).toBe('{"by":"app"}');
    }
    expect(taken).toEqual([]);
  });
});
