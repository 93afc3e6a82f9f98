import { parseCidr, type Cidr } from '@webui/core/net';
import { createCoreHarness } from '@webui/core/testing';
import { createWebuiApp, type HttpPolicy } from '@webui/http-hono';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorLogger } from '../harness/error-logger.js';
import { propertyParameters } from '../harness/property-parameters.js';

/**
 * Property-based tests of every endpoint, in process (app.request over the core harness) for
 * breadth: whatever the body, headers or path, the answer is never a 5xx, nothing throws out of
 * the app, and every error is the error body (docs/decisions/0001-error-bodies.md).
 */

const ANY_REQUEST = propertyParameters({ seed: 1_101, numRuns: 200 });
const ANY_JSON_BODY = propertyParameters({ seed: 1_102, numRuns: 200 });
const MAX_BODY = 16 * 1024;

const cidrs = (texts: string[]): Cidr[] => texts.map((text) => parseCidr(text) as Cidr);

async function freshApp(options: { trustProxies: boolean; peer: string | undefined }) {
  const harness = createCoreHarness({ seed: 3 });
  const boot = await harness.tokens.bootstrap();
  const token = boot.temporaryToken as string;
  const logger = new ErrorLogger();
  const policy: HttpPolicy = {
    serviceName: 'webui',
    mode: 'production',
    secureCookie: false,
    sessionExpireDays: 7,
    trustedProxies: options.trustProxies ? cidrs(['127.0.0.0/8', '::1', '10.0.0.0/8']) : [],
    allowedIps: [],
    allowedOrigins: ['http://localhost:5173'],
    allowedHosts: ['bot.example.com'],
    listenOrigins: () => ['http://127.0.0.1:8001', 'http://[::1]:8001'],
    loopbackOnly: true,
  };
  const app = createWebuiApp({
    services: harness,
    policy,
    runtime: { getConnInfo: () => ({ remote: { address: options.peer } }) },
    logger,
    now: () => harness.clock.now(),
  });
  return { app, token, logger, harness };
}

// ---- arbitraries -------------------------------------------------------------------------

/** Characters a header value may carry on the wire (no CR, LF or NUL): printable ASCII, tab and Latin-1. */
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
  )
  .map((code) => String.fromCharCode(code));
const headerValue = (maxLength = 120) => fc.string({ unit: headerChar, maxLength });

const PATHS = [
  '/health',
  '/auth/verify',
  '/auth/check',
  '/auth/update',
  '/auth/regenerate',
  '/auth/logout',
  '/setup/status',
  '/setup/complete',
  '/setup/reset',
  '/ws-token',
  '/ws',
  '/openapi.json',
  '/docs',
  '/config/anything',
  '/no/such/thing',
  '',
  '/',
  '//auth//verify',
  '/auth/verify/',
  '/AUTH/VERIFY',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/auth/%00',
];
const pathSegment = fc.string({ unit: fc.constantFrom(..."abcXYZ019-._~%!$&'()*+,;=:@/".split('')), maxLength: 40 });
const path = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PATHS).map((p) => `/api/webui${p}`) },
  { weight: 1, arbitrary: pathSegment.map((p) => `/api/webui/${p}`) },
  { weight: 1, arbitrary: pathSegment.map((p) => `/${p}`) },
);
const query = fc.option(fc.string({ unit: fc.constantFrom(...'ab=&%20token?#xyz09'.split('')), maxLength: 30 }), { nil: undefined });
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');

const ipList = fc.array(
  fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('::ffff:10.1.2.3', 'unknown', '', ' ', '300.1.1.1', '[::1]:80', '10.0.0.1:8080')),
  { maxLength: 6 },
);
const forwardedFor = fc.oneof(
  ipList.map((ips) => ips.join(', ')),
  headerValue(),
  fc.constant(Array.from({ length: 300 }, (_, i) => `10.0.${i % 256}.${i % 200}`).join(',')),
);

/** Cookie headers: the valid session (as the token placeholder), wrong ones, many, huge, badly encoded. */
const cookie = fc.oneof(
  fc.constant('bot_session=<TOKEN>'),
  fc.constant('bot_session="<TOKEN>"; other=1'),
  headerValue(60).map((value) => `bot_session=${value}`),
  fc.array(headerValue(20), { maxLength: 8 }).map((values) => values.map((value) => `bot_session=${value}`).join('; ')),
  fc.constantFrom(
    'bot_session=%E0%A4%A',
    'bot_session=%',
    'bot_session=%zz',
    'bot_session',
    '=',
    ';;;',
    'bot_session==;=bot_session',
    'a=b; bot_session=<TOKEN>%',
  ),
  fc.constant(`bot_session=${'x'.repeat(8_000)}`),
  headerValue(200),
);
const origin = fc.oneof(
  fc.constantFrom(
    'null',
    'http://127.0.0.1:8001',
    'http://localhost:5173',
    'http://evil.example',
    'https://127.0.0.1:8001',
    'http://[::1]:8001',
    'file://',
    'http://',
    '://',
  ),
  fc.webUrl(),
  headerValue(60),
);
const host = fc.oneof(
  fc.constantFrom(
    '127.0.0.1:8001',
    'localhost',
    'LOCALHOST:8001',
    '[::1]:8001',
    '[::1',
    '::1',
    'bot.example.com',
    'evil.example',
    '127.0.0.1:99999',
    ':8001',
    '[',
    ']',
    '127.1',
    'x.localhost',
  ),
  headerValue(60),
);
const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/jsonx',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    '',
  ),
  headerValue(40),
);
const contentLength = fc.oneof(
  fc.nat({ max: 100_000 }).map(String),
  fc.constantFrom('-1', 'abc', '1e3', '', '99999999999999999999', ' 12 ', '0x10'),
  headerValue(10),
);

/** JSON nested `depth` deep, around a token-shaped leaf: stresses parsers and validators. */
const deeplyNested = fc.tuple(fc.integer({ min: 100, max: 8_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
  const close = open === '[' ? ']' : '}';
  return `{"token":${open.repeat(depth)}1${close.repeat(depth)},"new_token":"x"}`;
});

const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 600 }),
  fc.constant('<TOKEN>'),
  fc.constant('Strong-Token!9x'),
  fc.constant('a'.repeat(MAX_BODY)),
);
const body = fc.oneof(
  { weight: 3, arbitrary: fc.record({ token: fieldValue }, { requiredKeys: [] }).map((value) => JSON.stringify(value)) },
  {
    weight: 3,
    arbitrary: fc
      .record({ new_token: fieldValue, extra: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] })
      .map((value) => JSON.stringify(value)),
  },
  { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: fc.integer({ min: MAX_BODY - 8, max: MAX_BODY + 4_000 }).map((size) => `{"token":"${'y'.repeat(size)}"}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'null',
      '[]',
      '{}',
      '{"token":null}',
      '{"__proto__":{"token":"x"}}',
      '{"token":"a","token":"b"}',
      '\uFEFF{"token":"x"}',
      '{"token":"\\ud800"}',
    ),
  },
);

const peer = fc.oneof(
  { weight: 5, arbitrary: fc.constant('127.0.0.5') },
  { weight: 1, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: fc.ipV6() },
  { weight: 1, arbitrary: fc.constantFrom('::ffff:127.0.0.9', '::1', undefined, '', 'garbage', 'fe80::1%eth0') },
);

const requestSpec = fc.record(
  {
    method,
    path,
    query,
    cookie,
    forwardedFor,
    realIp: headerValue(40),
    forwardedProto: fc.constantFrom('https', 'http', 'HTTPS, http', 'gopher', ''),
    origin,
    host,
    contentType,
    contentLength,
    body,
    peer,
    trustProxies: fc.boolean(),
  },
  { requiredKeys: ['method', 'path', 'peer', 'trustProxies', 'host'] },
);

// ---- the checks ----------------------------------------------------------------------------

async function expectSoundAnswer(response: Response, label: string, method = 'GET'): Promise<void> {
  expect(response.status, label).toBeLessThan(500);
  const text = await response.text();
  // A HEAD answer has the GET answer's headers and, by definition, no body.
  if (method === 'HEAD') return;
  if (response.status >= 400) {
    expect(response.headers.get('content-type'), label).toMatch(/^application\/json/);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(typeof parsed['detail'] === 'string' && parsed['detail'].length > 0, `${label}: detail`).toBe(true);
    expect(parsed['code'], label).toMatch(/^[a-z][a-z0-9_]*$/);
  } else if (text !== '' && response.headers.get('content-type')?.startsWith('application/json')) {
    expect(() => JSON.parse(text), label).not.toThrow();
  }
}

describe('fuzzing every endpoint in process', () => {
  it(
    `any method, path, headers and body: no 5xx, nothing thrown, error bodies (docs/decisions/0001-error-bodies.md) (${ANY_REQUEST.numRuns} runs)`,
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(requestSpec, async (spec) => {
          const { app, token, logger } = await freshApp({ trustProxies: spec.trustProxies, peer: spec.peer });
          const headers = new Headers();
          headers.set('host', spec.host);
          const withToken = (value: string) => value.replaceAll('<TOKEN>', token);
          if (spec.cookie !== undefined) headers.set('cookie', withToken(spec.cookie));
          if (spec.forwardedFor !== undefined) headers.set('x-forwarded-for', spec.forwardedFor);
          if (spec.realIp !== undefined) headers.set('x-real-ip', spec.realIp);
          if (spec.forwardedProto !== undefined) headers.set('x-forwarded-proto', spec.forwardedProto);
          if (spec.origin !== undefined) headers.set('origin', spec.origin);
          if (spec.contentType !== undefined) headers.set('content-type', spec.contentType);
          if (spec.contentLength !== undefined) headers.set('content-length', spec.contentLength);
          const hasBody = spec.body !== undefined && spec.method !== 'GET' && spec.method !== 'HEAD';
          const url = `http://127.0.0.1:8001${spec.path}${spec.query === undefined ? '' : `?${spec.query}`}`;
          const label = `${spec.method} ${url}`;
          const response = await app.request(url, {
            method: spec.method,
            headers,
            ...(hasBody ? { body: withToken(spec.body as string) } : {}),
          });
          await expectSoundAnswer(response, label, spec.method);
          expect(logger.errors, label).toEqual([]);
        }),
        ANY_REQUEST,
      );
    },
  );

  it(
    `JSON endpoints with a valid session: any body is a 2xx or a 4xx with the error body (docs/decisions/0001-error-bodies.md) (${ANY_JSON_BODY.numRuns} runs)`,
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('/auth/verify', '/auth/update', '/auth/regenerate', '/setup/complete', '/setup/reset', '/auth/logout'),
          body,
          contentType,
          async (endpoint, rawBody, type) => {
            const { app, token, logger, harness } = await freshApp({ trustProxies: false, peer: '127.0.0.5' });
            const response = await app.request(`http://127.0.0.1:8001/api/webui${endpoint}`, {
              method: 'POST',
              headers: { host: '127.0.0.1:8001', cookie: `bot_session=${encodeURIComponent(token)}`, 'content-type': type },
              body: rawBody.replaceAll('<TOKEN>', token),
            });
            await expectSoundAnswer(response, endpoint);
            expect([200, 400, 401, 413, 415, 422, 429]).toContain(response.status);
            if (rawBody.length > MAX_BODY && response.status !== 200) expect(response.status).toBe(413);
            expect(logger.errors).toEqual([]);
            // Whatever happened, the record is whole and one of the tokens the body could have set.
            const record = await harness.store.record.readRecord();
            expect(typeof record?.accessToken === 'string' && record.accessToken.length > 0).toBe(true);
          },
        ),
        ANY_JSON_BODY,
      );
    },
  );

  it('bodies over 16 KiB answer 413 with the error body (docs/decisions/0001-error-bodies.md) on every POST endpoint', async () => {
    const { app, token } = await freshApp({ trustProxies: false, peer: '127.0.0.5' });
    for (const endpoint of ['/auth/verify', '/auth/update', '/setup/complete', '/auth/logout', '/no/such/thing']) {
      const response = await app.request(`http://127.0.0.1:8001/api/webui${endpoint}`, {
        method: 'POST',
        headers: { host: '127.0.0.1:8001', cookie: `bot_session=${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ token: 'z'.repeat(MAX_BODY) }),
      });
      expect(response.status, endpoint).toBe(413);
      expect(await response.json()).toEqual({ detail: expect.any(String), code: 'payload_too_large' });
    }
  });
});
