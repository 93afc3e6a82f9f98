import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { propertyParameters } from '../harness/property-parameters.js';
import { parseRawResponses } from '../harness/clients/raw-exchange.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * Property-based tests of raw HTTP/1.1 against the real server, below what any HTTP client would
 * send: Content-Length that lies, duplicated or conflicting framing headers, odd Host values, huge
 * cookies, broken lines. Whatever arrives, every answer is below 500 and carries the error body (docs/decisions/0001-error-bodies.md) when
 * it is an error, and the server stays up.
 */

afterAll(cleanupServers);

const ANY_BYTES = propertyParameters({ seed: 3_101, numRuns: 200, endOnFailure: true });

/** Sends `request` on a fresh connection, half-closes, and reads until the server closes. */
function exchange(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 8 s; received ${JSON.stringify(received.slice(0, 300))}`));
    }, 8_000);
    socket.on('connect', () => socket.end(request));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(received);
    });
  });
}

// ---- the request generator ---------------------------------------------------------------

const headerChar = fc
  .oneof({ weight: 9, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) }, { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) })
  .map((code) => String.fromCharCode(code));
const token = fc.string({ unit: headerChar, minLength: 1, maxLength: 30 });

const target = fc.oneof(
  fc.constantFrom(
    '/api/webui/health',
    '/api/webui/auth/verify',
    '/api/webui/auth/check',
    '/api/webui/auth/update',
    '/api/webui/ws-token',
    '/api/webui/setup/status',
    '/api/webui/nope',
    '*',
    'http://127.0.0.1/api/webui/health',
    'http://evil.example/api/webui/health',
    '/api/webui/health?x=%zz',
    '/api/webui/../../etc/passwd',
    '//api//webui//health',
    '',
  ),
  token.map((path) => `/api/webui/${path}`),
);
const method = fc.oneof(fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'get', 'POSTX'), token);
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'http/1.1', '');

/** One header line (without CRLF), chosen among the ones that matter and random ones. */
const headerLine = (bodyLength: number, sessionToken: string) =>
  fc.oneof(
    fc.constantFrom(
      'Host: 127.0.0.1',
      'Host: localhost:8001',
      'Host: [::1]',
      'Host:',
      'Host: evil.example',
      'Host: 127.0.0.1:99999999',
      'Host: [::1',
      `Host: ${'h'.repeat(3_000)}`,
    ),
    fc.constantFrom(
      `Cookie: bot_session=${sessionToken}`,
      `Cookie: bot_session=${'c'.repeat(9_000)}`,
      `Cookie: bot_session=${'c'.repeat(20_000)}`,
      'Cookie: bot_session=%E0%A4%A',
      'Cookie: ;;;=;',
    ),
    fc.constantFrom(
      'X-Forwarded-For: 10.0.0.1, 10.0.0.2',
      'X-Forwarded-For: garbage, , ::1',
      `X-Forwarded-For: ${'1.2.3.4,'.repeat(500)}`,
      'X-Real-IP: 999.1.1.1',
    ),
    fc.constantFrom('Origin: http://evil.example', 'Origin: null', 'Origin: http://127.0.0.1:8001', 'Origin:'),
    fc.constantFrom(
      'Content-Type: application/json',
      'Content-Type: text/plain',
      'Content-Type: application/json; charset=latin1',
      'Content-Type:',
    ),
    fc.oneof(
      fc.constant(`Content-Length: ${bodyLength}`),
      fc.integer({ min: 0, max: bodyLength + 50 }).map((n) => `Content-Length: ${n}`),
      fc.constantFrom(
        'Content-Length: -1',
        'Content-Length: abc',
        'Content-Length: 1e2',
        'Content-Length: 99999999999999999999',
        `Content-Length: ${bodyLength}, ${bodyLength + 1}`,
        'Content-Length:  ',
      ),
    ),
    fc.constantFrom(
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: chunked, identity',
      'Transfer-Encoding: gzip',
      'Transfer-Encoding: xchunked',
    ),
    fc.constantFrom('Connection: keep-alive', 'Connection: close', 'Connection: upgrade', 'Expect: 100-continue', 'Upgrade: h2c'),
    fc.constantFrom(
      ' folded continuation',
      'NoColonHere',
      ': empty-name',
      'Bad Name: x',
      'X-Null: a\u0000b',
      `X-Long: ${'l'.repeat(12_000)}`,
    ),
    fc.tuple(token, fc.string({ unit: headerChar, maxLength: 60 })).map(([name, value]) => `${name}: ${value}`),
  );

const rawRequest = fc
  .record({
    method,
    target,
    version,
    body: fc.oneof(
      fc.constant(''),
      fc.json({ maxDepth: 2 }),
      fc.string({ unit: headerChar, maxLength: 200 }),
      fc.constant('{"token":"x"}'),
    ),
    lineEnd: fc.constantFrom('\r\n', '\r\n', '\r\n', '\n'),
    withHeaders: fc.integer({ min: 0, max: 6 }),
    seed: fc.integer(),
  })
  .chain((parts) =>
    fc.record({
      parts: fc.constant(parts),
      headers: fc.array(headerLine(Buffer.byteLength(parts.body), '<TOKEN>'), {
        minLength: parts.withHeaders,
        maxLength: parts.withHeaders,
      }),
      // Usually a Host the guard accepts, so requests reach the app too.
      defaultHost: fc.boolean(),
    }),
  );

describe('fuzzing raw HTTP against the real server', () => {
  let server: ServerProcess;
  let sessionToken: string;

  beforeAll(async () => {
    server = await startServer({ args: ['--host', '127.0.0.1'] });
    sessionToken = readWebuiFile(server.dataDir).access_token;
  });

  it(
    `any bytes on the wire: answers below 500 with error bodies (docs/decisions/0001-error-bodies.md), and the server stays up (${ANY_BYTES.numRuns} runs)`,
    { timeout: 180_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(rawRequest, async ({ parts, headers, defaultHost }) => {
          const lines = headers.map((line) => line.replaceAll('<TOKEN>', sessionToken));
          if (defaultHost) lines.unshift('Host: 127.0.0.1');
          const head = [`${parts.method} ${parts.target} ${parts.version}`.trimEnd(), ...lines].join(parts.lineEnd);
          const request = Buffer.from(`${head}${parts.lineEnd}${parts.lineEnd}${parts.body}`, 'latin1');
          const raw = await exchange(server.port, request);
          const responses = parseRawResponses(raw, parts.method === 'HEAD');
          for (const response of responses) {
            const label = `${response.status} for ${JSON.stringify(head.slice(0, 300))}`;
            expect(response.status, label).toBeLessThan(500);
            if (response.status >= 400) {
              expect(response.headers.get('content-type'), label).toMatch(/^application\/json/);
              if (response.bodiless) continue;
              const body = JSON.parse(response.body) as Record<string, unknown>;
              expect(typeof body['detail'] === 'string' && body['detail'] !== '', label).toBe(true);
              expect(body['code'], label).toMatch(/^[a-z][a-z0-9_]*$/);
            }
          }
        }),
        ANY_BYTES,
      );

      const client = new HttpClient(server.baseUrl);
      expect((await client.get('/health')).status).toBe(200);
      expect((await client.post('/auth/verify', { body: { token: sessionToken } })).json).toMatchObject({ valid: true });
      expect(server.logs().filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
      expect(server.stderr()).not.toMatch(/\bError\b:|\n\s+at \S.*:\d+:\d+/);
    },
  );

  it.each([
    [
      'Content-Length shorter than the body: the rest is a second, malformed request',
      'POST /api/webui/auth/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"token":"x"}',
    ],
    [
      'Content-Length longer than the body, then the client half-closes',
      'POST /api/webui/auth/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ' +
        '500\r\n\r\n{"token":"x"}',
    ],
    [
      'two different Content-Length headers',
      'POST /api/webui/auth/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 13\r\nContent-Length: 14\r\n\r\n{"token":"x"}',
    ],
    [
      'Content-Length and Transfer-Encoding together (smuggling)',
      'POST /api/webui/auth/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET ' +
        '/api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    ],
    ['no Host at all', 'GET /api/webui/health HTTP/1.1\r\n\r\n'],
    ['two Host headers', 'GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n'],
    ['a 20 KiB cookie', `GET /api/webui/auth/check HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: bot_session=${'c'.repeat(20_000)}\r\n\r\n`],
    ['a header line without a colon', 'GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBroken\r\n\r\n'],
    ['not HTTP at all', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003'],
    // Counterexamples the fuzzers found, kept as named examples so they stay fixed.
    [
      'regression (wire fuzzer, 2026-11-23): PUT without an HTTP version, with Connection: upgrade and Upgrade: h2c, was answered 200 ' +
        'with no body',
      'PUT /api/webui/setup/status\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\nUpgrade: h2c\r\nCookie: ' +
        'bot_session=<TOKEN>\r\nContent-Type: application/json\r\n\r\n',
    ],
    [
      'regression (wire fuzzer, 2026-11-23): GET /health with Connection: upgrade and Upgrade: h2c was answered 200 with an empty body',
      'GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n',
    ],
    [
      'regression (wire fuzzer, 2026-11-22): a chunked body that breaks off when the client leaves was a logged 500',
      'POST /api/webui/auth/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: ' +
        'chunked\r\n\r\n20\r\n{"token":"',
    ],
  ])('%s: answers below 500 with error bodies (docs/decisions/0001-error-bodies.md)', async (_label, request) => {
    const raw = await exchange(server.port, Buffer.from(request.replaceAll('<TOKEN>', sessionToken), 'latin1'));
    const responses = parseRawResponses(raw, false);
    // A request the client abandons mid-body may go unanswered; one that is complete may not.
    if (!request.includes('{"token":"')) expect(responses.length).toBeGreaterThanOrEqual(1);
    for (const response of responses) {
      expect(response.status).toBeLessThan(500);
      if (response.status >= 400) {
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(JSON.parse(response.body)).toEqual(
          expect.objectContaining({ detail: expect.any(String), code: expect.stringMatching(/^[a-z_]+$/) }),
        );
      }
    }
    expect((await new HttpClient(server.baseUrl).get('/health')).status).toBe(200);
    expect(server.logs().filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
  });

  it('regression (wire fuzzer, 2026-11-23): the upgrade counterexample is answered as the plain request, a 404 (docs/decisions/0001-error-bodies.md)', async () => {
    const request =
      `PUT /api/webui/setup/status\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\nUpgrade: h2c\r\nCookie: ` +
      `bot_session=${sessionToken}\r\nContent-Type: application/json\r\n\r\n`;
    const [response, ...more] = parseRawResponses(await exchange(server.port, Buffer.from(request, 'latin1')), false);
    expect(more).toEqual([]);
    expect(response?.status).toBe(404);
    expect(response?.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(response?.body ?? '')).toEqual({ detail: 'No endpoint at PUT /api/webui/setup/status.', code: 'not_found' });
  });
});
