import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WebuiServices } from './app-env.js';
import { API_PREFIX } from './create-webui-app.js';
import type { PlainAnswer } from './plain-answer.js';
import { createSessionCheckShortcut, SESSION_CHECK_TARGET, type PlainRequest } from './session-check-shortcut.js';
import { createTestApp, RecordingLogger, type TestApp, type TestPolicyOptions } from './testing/test-app.js';

interface Probe {
  method: 'GET' | 'POST';
  target: string;
  peer: string;
  host: string | undefined;
  /** A raw Cookie header; `@token@` stands for the access token. */
  cookie: string | undefined;
  forwardedFor: string | undefined;
  origin: string | undefined;
  /** Fake-clock milliseconds to let pass before the request. */
  waitMs: number;
}

const servicesOf = (t: TestApp): WebuiServices => ({ tokens: t.harness.tokens, setup: t.harness.setup, bans: t.harness.bans, tickets: t.harness.tickets });

function headersOf(probe: Probe, token: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (probe.host !== undefined) headers['host'] = probe.host;
  if (probe.cookie !== undefined) headers['cookie'] = probe.cookie.replaceAll('@token@', token);
  if (probe.forwardedFor !== undefined) headers['x-forwarded-for'] = probe.forwardedFor;
  if (probe.origin !== undefined) headers['origin'] = probe.origin;
  return headers;
}

/** What a client sees of an answer to /auth/check: status, body and the headers that matter. */
async function seen(res: Response | PlainAnswer): Promise<object> {
  if (res instanceof Response) {
    const header = (name: string) => res.headers.get(name);
    return { status: res.status, body: await res.text(), type: header('content-type'), cache: header('cache-control'), retry: header('retry-after') };
  }
  const header = (name: string) => Object.entries(res.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
  return { status: res.status, body: res.body, type: header('content-type'), cache: header('cache-control'), retry: header('retry-after') };
}

const appRequest = (t: TestApp, probe: Probe): Promise<Response> =>
  t.request(`//${probe.target.slice(1)}`, { method: probe.method, peer: probe.peer, host: probe.host ?? null, headers: headersOf(probe, t.token), ...(probe.method === 'POST' ? { body: '' } : {}) });

const probeArbitrary: fc.Arbitrary<Probe> = fc.record({
  method: fc.oneof({ arbitrary: fc.constant('GET' as const), weight: 9 }, { arbitrary: fc.constant('POST' as const), weight: 1 }),
  target: fc.oneof({ arbitrary: fc.constant(SESSION_CHECK_TARGET), weight: 8 }, { arbitrary: fc.constantFrom(`${SESSION_CHECK_TARGET}?x=1`, `${API_PREFIX}/health`), weight: 2 }),
  peer: fc.constantFrom('127.0.0.5', '127.0.0.5', '127.0.0.5', '203.0.113.7', '10.0.0.1', '::1', '2001:db8::1'),
  host: fc.constantFrom('127.0.0.1:8001', '127.0.0.1:8001', '127.0.0.1:8001', 'localhost', '[::1]:8001', 'evil.example', 'allowed.example:8443', 'LOCALHOST', '127.1', 'a.b:99999', '127.0.0.1, evil.example', '', undefined),
  cookie: fc.constantFrom(
    undefined,
    'bot_session=@token@',
    'bot_session="@token@"',
    'theme=dark; bot_session=@token@',
    'bot_session=wrong-1',
    'bot_session=wrong-2',
    'bot_session=wrong-3; bot_session=wrong-4',
    'bot_session=wrong-5',
    'bot_session=wrong-6; bot_session=@token@',
    'bot_session=%zz',
    'other=1',
  ),
  forwardedFor: fc.constantFrom(undefined, undefined, undefined, '203.0.113.9', '198.51.100.4, 10.0.0.1', 'garbage', '2001:db8::7'),
  origin: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.constantFrom('http://127.0.0.1:8001', 'https://evil.example'), weight: 2 }),
  waitMs: fc.constantFrom(0, 0, 0, 0, 0, 0, 61_000, 11 * 60_000),
});

const policyArbitrary: fc.Arbitrary<TestPolicyOptions> = fc.record({
  loopbackOnly: fc.boolean(),
  allowedIps: fc.oneof(fc.constant<string[]>([]), fc.subarray(['127.0.0.0/8', '203.0.113.0/24', '2001:db8::/32'])),
  trustedProxies: fc.subarray(['127.0.0.5', '10.0.0.1', '::1']),
  allowedHosts: fc.subarray(['allowed.example:8443', 'evil.example']),
});

describe('GET /auth/check shortcut (the app\'s steps without the Hono pipeline)', () => {
  it('is not made while debug logging is on, so every request keeps its debug line', async () => {
    const t = await createTestApp();
    expect(createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(true) })).toBeUndefined();
    expect(createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(false) })).toBeTypeOf('function');
  });

  it('answers a valid session exactly as the app does, and leaves an Origin, a refusal or another path to the app', async () => {
    const t = await createTestApp();
    const shortcut = createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(false) });
    const cookie = await t.login();
    const plain = (overrides: Partial<PlainRequest> = {}): PlainRequest => {
      const headers: Record<string, string> = { host: '127.0.0.1:8001', cookie: `bot_session=${cookie}` };
      return { method: 'GET', target: SESSION_CHECK_TARGET, peerAddress: '127.0.0.5', isTls: false, header: (name) => headers[name], ...overrides };
    };
    const answer = await shortcut?.(plain());
    expect(answer).toEqual({
      status: 200,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      body: JSON.stringify({ authenticated: true, token_source: 'temporary', requires_custom_token: true }),
    });
    expect(await seen(answer as PlainAnswer)).toEqual(await seen(await t.request('/auth/check', { cookie })));
    const origin = plain({ header: (name) => ({ host: '127.0.0.1:8001', origin: 'http://127.0.0.1:8001' })[name] });
    expect(shortcut?.(origin)).toBeNull();
    expect(shortcut?.(plain({ header: (name) => ({ host: 'evil.example' })[name] }))).toBeNull();
    expect(shortcut?.(plain({ method: 'HEAD' }))).toBeNull();
    expect(shortcut?.(plain({ target: `${SESSION_CHECK_TARGET}/` }))).toBeNull();
  });

  it('logs a failing store and answers the D1 500 body, as the app would', async () => {
    const t = await createTestApp();
    const logger = new RecordingLogger(false);
    const services = servicesOf(t);
    const failing = { ...services, bans: { status: () => Promise.reject(new Error('disk gone')) } } as unknown as WebuiServices;
    const shortcut = createSessionCheckShortcut({ services: failing, policy: t.policy, logger });
    const answer = await shortcut?.({ method: 'GET', target: SESSION_CHECK_TARGET, peerAddress: '127.0.0.5', isTls: false, header: (name) => ({ host: 'localhost', cookie: 'bot_session=x' })[name] });
    expect(answer?.status).toBe(500);
    expect(JSON.parse(answer?.body ?? '{}')).toEqual({ detail: 'The server could not complete the request; see its log.', code: 'internal_error' });
    expect(logger.at('error').map((call) => call.message)).toEqual(['request failed']);
  });

  it('bans the client a trusted proxy names, with Retry-After, exactly as the app does', async () => {
    const policy = { trustedProxies: ['127.0.0.5'] };
    const viaShortcut = await createTestApp({ policy, logger: new RecordingLogger(false) });
    const appAlone = await createTestApp({ policy, logger: new RecordingLogger(false) });
    const shortcut = createSessionCheckShortcut({ services: servicesOf(viaShortcut), policy: viaShortcut.policy, logger: viaShortcut.logger });
    const probe = (cookie: string, forwardedFor: string): Probe => ({ method: 'GET', target: SESSION_CHECK_TARGET, peer: '127.0.0.5', host: 'localhost', cookie, forwardedFor, origin: undefined, waitMs: 0 });
    const both = async (p: Probe) => {
      const headers = headersOf(p, viaShortcut.token);
      const taken = shortcut?.({ method: p.method, target: p.target, peerAddress: p.peer, isTls: false, header: (name) => headers[name] }) ?? null;
      expect(taken).not.toBeNull();
      const answer = await seen((await taken) as PlainAnswer);
      expect(answer).toEqual(await seen(await appRequest(appAlone, p)));
      return answer;
    };
    for (let i = 1; i <= 4; i++) expect(await both(probe(`bot_session=wrong-${i}`, '203.0.113.9'))).toMatchObject({ status: 200 });
    expect(await both(probe('bot_session=wrong-5', '203.0.113.9'))).toMatchObject({ status: 429, retry: '600' });
    expect(await both(probe('bot_session=@token@', '203.0.113.9'))).toMatchObject({ status: 429, retry: '600' });
    expect(await both(probe('bot_session=@token@', '198.51.100.4'))).toMatchObject({ status: 200, body: expect.stringContaining('"authenticated":true') });
  });

  it('gives, request after request, the same answers as the app alone, bans and refusals included', async () => {
    await fc.assert(
      fc.asyncProperty(policyArbitrary, fc.array(probeArbitrary, { minLength: 10, maxLength: 40, size: 'max' }), async (policy, probes) => {
        // Twins: the same seeded token and clock, one answered through the shortcut where it takes a request, one by the app alone.
        const viaShortcut = await createTestApp({ policy, logger: new RecordingLogger(false) });
        const appAlone = await createTestApp({ policy, logger: new RecordingLogger(false) });
        expect(viaShortcut.token).toBe(appAlone.token);
        const shortcut = createSessionCheckShortcut({ services: servicesOf(viaShortcut), policy: viaShortcut.policy, logger: viaShortcut.logger });
        for (const probe of probes) {
          viaShortcut.harness.clock.advance(probe.waitMs);
          appAlone.harness.clock.advance(probe.waitMs);
          const headers = headersOf(probe, viaShortcut.token);
          const plain: PlainRequest = { method: probe.method, target: probe.target, peerAddress: probe.peer, isTls: false, header: (name) => headers[name] };
          const taken = shortcut?.(plain) ?? null;
          const left = taken === null ? await appRequest(viaShortcut, probe) : await taken;
          expect(await seen(left), JSON.stringify(probe)).toEqual(await seen(await appRequest(appAlone, probe)));
        }
      }),
      // A fixed seed: npm test passes or fails the same way on every run.
      { seed: 4_101, numRuns: 100 },
    );
  });
});
