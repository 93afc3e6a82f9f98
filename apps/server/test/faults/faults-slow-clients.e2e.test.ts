import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

// The timeouts are node:http's (packages/assembly/src/node/listeners.ts); Bun and Deno bring their own servers.
const RUNTIME = process.env['WEBUI_E2E_RUNTIME'] ?? 'node';
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
// Node checks for expired requests every second (listeners.ts); the rest is a loaded test machine.
const SLACK_MS = 3_000;

interface RawExchange {
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
  response: string;
}

/** A raw connection that sends `parts` at the given delays and then waits for the server to close it. */
function rawClient(port: number, parts: Array<{ afterMs: number; data: string }>): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    let response = '';
    socket.on('connect', () => {
      for (const part of parts) timers.push(setTimeout(() => socket.writable && socket.write(part.data), part.afterMs));
    });
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      timers.forEach(clearTimeout);
      resolve({ closedAfterMs: performance.now() - started, response });
    });
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server never closed the connection'));
    }, REQUEST_TIMEOUT_MS + 20_000);
    socket.on('close', () => clearTimeout(guard));
  });
}

/** Status line and parsed JSON body of a raw HTTP/1.1 answer. */
function parseRaw(response: string): { status: number; json: Record<string, unknown> | null } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
  const body = response.slice(response.indexOf('\r\n\r\n') + 4);
  try {
    return { status, json: JSON.parse(body) as Record<string, unknown> };
  } catch {
    return { status, json: null };
  }
}

function expectTimedOut(exchange: RawExchange, limitMs: number): void {
  expect(exchange.closedAfterMs).toBeGreaterThan(limitMs - 500);
  expect(exchange.closedAfterMs).toBeLessThan(limitMs + SLACK_MS);
  // Answered 408 with the error body (docs/decisions/0001-error-bodies.md), or cut without an answer: never left open, never a 5xx.
  if (exchange.response !== '') {
    const { status, json } = parseRaw(exchange.response);
    expect(status).toBe(408);
    expect(json).toEqual({ detail: expect.any(String), code: 'request_timeout' });
  }
}

describe.skipIf(RUNTIME !== 'node')('slow and oversized clients', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer({ args: ['--host', '127.0.0.1'] });
  });

  it(
    'headers must arrive within 10 s and the whole request within 30 s; meanwhile everyone else is served',
    { timeout: REQUEST_TIMEOUT_MS + 20_000 },
    async () => {
      const host = `Host: 127.0.0.1:${server.port}\r\n`;
      const trickle = (text: string, everyMs: number) => [...text].map((char, i) => ({ afterMs: i * everyMs, data: char }));
      const exchanges = Promise.all([
        // Part of the headers, then silence.
        rawClient(server.port, [{ afterMs: 0, data: `GET /api/webui/health HTTP/1.1\r\n${host}X-Slow: ` }]),
        // Slowloris: a header byte every 500 ms, never finishing; the limit counts from the first byte, not the last.
        rawClient(server.port, trickle(`GET /api/webui/health HTTP/1.1\r\n${host}X-Trickle: ${'a'.repeat(200)}`, 500)),
        // Whole headers, part of the body, then silence.
        rawClient(server.port, [
          {
            afterMs: 0,
            data: `POST /api/webui/auth/verify HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tok`,
          },
        ]),
        // Whole headers, the body a byte every 700 ms.
        rawClient(server.port, [
          {
            afterMs: 0,
            data: `POST /api/webui/auth/verify HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
          },
          ...trickle(`{"token":"${'x'.repeat(86)}"}`, 700).map((part) => ({ ...part, afterMs: part.afterMs + 700 })),
        ]),
      ]);

      // The server keeps answering others at once while those connections hang.
      const client = new HttpClient(server.baseUrl);
      for (let i = 0; i < 5; i++) {
        // A real wait, kept: the hanging connections must live on toward node:http's own 10 s and 30 s timeouts.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const started = performance.now();
        expect((await client.get('/health')).status).toBe(200);
        expect(performance.now() - started).toBeLessThan(2_000);
      }

      const [partialHeaders, slowloris, partialBody, tricklingBody] = await exchanges;
      expectTimedOut(partialHeaders as RawExchange, HEADERS_TIMEOUT_MS);
      expectTimedOut(slowloris as RawExchange, HEADERS_TIMEOUT_MS);
      expectTimedOut(partialBody as RawExchange, REQUEST_TIMEOUT_MS);
      expectTimedOut(tricklingBody as RawExchange, REQUEST_TIMEOUT_MS);
      expect((await client.get('/health')).status).toBe(200);
    },
  );

  it.each([
    ['with Content-Length', true],
    ['chunked, without Content-Length', false],
  ])('a body over 16 KiB %s answers 413 with the error body (docs/decisions/0001-error-bodies.md)', async (_label, declared) => {
    const body = JSON.stringify({ token: 'x'.repeat(17 * 1024) });
    const head =
      `POST /api/webui/auth/verify HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: ` +
      `application/json\r\nConnection: close\r\n`;
    const request = declared
      ? `${head}Content-Length: ${body.length}\r\n\r\n${body}`
      : `${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const exchange = await rawClient(server.port, [{ afterMs: 0, data: request }]);
    const { status, json } = parseRaw(exchange.response);
    expect(status).toBe(413);
    expect(json).toEqual({ detail: expect.any(String), code: 'payload_too_large' });
    // Not counted as a failed verification (the token was never read): a wrong token now is still far from a reminder.
    expect((await new HttpClient(server.baseUrl).post('/auth/verify', { body: { token: 'probe' } })).json).toEqual({
      valid: false,
      message: expect.any(String),
    });
  });
});
