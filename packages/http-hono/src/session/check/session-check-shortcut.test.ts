import { describe, expect, it } from 'vitest';
import type { WebuiServices } from '../../app-env.js';
import type { PlainAnswer } from '../../answers/plain-answer.js';
import { createSessionCheckShortcut, SESSION_CHECK_TARGET, type PlainRequest } from './session-check-shortcut.js';
import { createTestApp, RecordingLogger, type TestApp } from '../../testing/test-app.js';

const servicesOf = (t: TestApp): WebuiServices => ({
  tokens: t.harness.tokens,
  keys: t.harness.keys,
  credentials: t.harness.credentials,
  setup: t.harness.setup,
  bans: t.harness.bans,
  tickets: t.harness.tickets,
});

/** What a client sees of an answer to /auth/check: status, body and the headers that matter. */
async function seen(res: Response | PlainAnswer): Promise<object> {
  if (res instanceof Response) {
    const header = (name: string) => res.headers.get(name);
    return {
      status: res.status,
      body: await res.text(),
      type: header('content-type'),
      cache: header('cache-control'),
      retry: header('retry-after'),
    };
  }
  const header = (name: string) => Object.entries(res.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
  return { status: res.status, body: res.body, type: header('content-type'), cache: header('cache-control'), retry: header('retry-after') };
}

describe("GET /auth/check shortcut (the app's steps without the Hono pipeline)", () => {
  it('is not made while debug logging is on, so every request keeps its debug line', async () => {
    const t = await createTestApp();
    expect(createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(true) })).toBeUndefined();
    expect(createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(false) })).toBeTypeOf(
      'function',
    );
  });

  it('answers a valid session exactly as the app does, and leaves an Origin, a refusal or another path to the app', async () => {
    const t = await createTestApp();
    const shortcut = createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(false) });
    const cookie = await t.login();
    const plain = (overrides: Partial<PlainRequest> = {}): PlainRequest => {
      const headers: Record<string, string> = { host: '127.0.0.1:8001', cookie: `bot_session=${cookie}` };
      return {
        method: 'GET',
        target: SESSION_CHECK_TARGET,
        peerAddress: '127.0.0.5',
        isTls: false,
        header: (name) => headers[name],
        ...overrides,
      };
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

  it('refuses several credentials as the app does: 400 duplicate_credentials, counted against the client', async () => {
    const t = await createTestApp();
    const shortcut = createSessionCheckShortcut({ services: servicesOf(t), policy: t.policy, logger: new RecordingLogger(false) });
    const cookie = await t.login();
    const several: Array<Record<string, string>> = [
      { cookie: `bot_session=wrong; bot_session=${cookie}` },
      { authorization: `Bearer wrong, Bearer ${t.token}` },
    ];
    for (const headers of several) {
      const all: Record<string, string> = { host: '127.0.0.1:8001', ...headers };
      const answer = await shortcut?.({
        method: 'GET',
        target: SESSION_CHECK_TARGET,
        peerAddress: '127.0.0.5',
        isTls: false,
        header: (name) => all[name],
      });
      expect(await seen(answer as PlainAnswer)).toEqual(await seen(await t.request('/auth/check', { headers })));
      expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({ code: 'duplicate_credentials', authenticated: false });
    }
    expect(await t.harness.bans.list()).toMatchObject([{ key: '127.0.0.5', failures: 4 }]);
  });

  it('logs a failing store and answers the 500 error body (docs/decisions/0001-error-bodies.md), as the app would', async () => {
    const t = await createTestApp();
    const logger = new RecordingLogger(false);
    const services = servicesOf(t);
    const failing = { ...services, bans: { status: () => Promise.reject(new Error('disk gone')) } } as unknown as WebuiServices;
    const shortcut = createSessionCheckShortcut({ services: failing, policy: t.policy, logger });
    const answer = await shortcut?.({
      method: 'GET',
      target: SESSION_CHECK_TARGET,
      peerAddress: '127.0.0.5',
      isTls: false,
      header: (name) => ({ host: 'localhost', cookie: 'bot_session=x' })[name],
    });
    expect(answer?.status).toBe(500);
    expect(JSON.parse(answer?.body ?? '{}')).toEqual({
      detail: 'The server could not complete the request; see its log.',
      code: 'internal_error',
    });
    expect(logger.at('error').map((call) => call.message)).toEqual(['request failed']);
  });
});
