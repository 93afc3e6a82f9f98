import { describe, expect, it, vi } from 'vitest';
import { CookieJar } from './cookie-jar.js';
import { createSessionFetch, UNTIL_ANSWERED, type FetchLike } from './session-fetch.js';
import { WebuiError, parseRetryAfter } from '../webui-error.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fake server answering from a script of responses, recording what it was sent. */
function scripted(...answers: Array<() => Response>) {
  const seen: Array<{ url: string; cookie: string | null; authorization: string | null; credentials: RequestCredentials; body: string }> =
    [];
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    seen.push({
      url: new URL(request.url).pathname,
      cookie: request.headers.get('cookie'),
      authorization: request.headers.get('authorization'),
      credentials: request.credentials,
      body: await request.text(),
    });
    const next = answers.shift();
    if (!next) throw new Error('no more scripted answers');
    return next();
  };
  return { fetch, seen };
}

describe('createSessionFetch', () => {
  it('waits Retry-After on a 429 and sends the request again, body included', async () => {
    const server = scripted(
      () => json(429, { detail: 'slow down', code: 'too_many_connections', retry_after: 2 }, { 'retry-after': '2' }),
      () => json(200, { ok: true }),
    );
    const sleep = vi.fn(async () => undefined);
    const send = createSessionFetch({
      fetch: server.fetch,
      jar: new CookieJar(),
      maxRetries: 1,
      maxRetryAfter: 60,
      relogin: async () => false,
      sleep,
    });
    const response = await send('http://h/api/webui/x', { method: 'POST', body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(sleep).toHaveBeenCalledWith(2_000, undefined);
    expect(server.seen.map((entry) => entry.body)).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('throws the 429 at once when Retry-After is beyond maxRetryAfter, or retries are used up', async () => {
    const banned = () => json(429, { detail: 'banned', code: 'too_many_attempts', retry_after: 600 }, { 'retry-after': '600' });
    const sleep = vi.fn(async () => undefined);
    const send = createSessionFetch({
      fetch: scripted(banned).fetch,
      jar: new CookieJar(),
      maxRetries: 3,
      maxRetryAfter: 60,
      relogin: async () => false,
      sleep,
    });
    const error = await send('http://h/api/webui/auth/verify').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebuiError);
    expect(error).toMatchObject({ status: 429, code: 'too_many_attempts', detail: 'banned', retryAfter: 600 });
    expect(sleep).not.toHaveBeenCalled();

    const short = () => json(429, { detail: 'later', code: 'too_many_connections' }, { 'retry-after': '1' });
    const limited = createSessionFetch({
      fetch: scripted(short, short).fetch,
      jar: new CookieJar(),
      maxRetries: 1,
      maxRetryAfter: 60,
      relogin: async () => false,
      sleep,
    });
    await expect(limited('http://h/api/webui/ws-token')).rejects.toMatchObject({ status: 429, retryAfter: 1 });
    expect(sleep).toHaveBeenCalledTimes(1);
  });

  it("stops waiting out a 429 as soon as the call's signal aborts", async () => {
    const controller = new AbortController();
    const server = scripted(() => {
      // The abort comes while the client waits out the answer's ten minutes.
      setTimeout(() => controller.abort(), 0);
      return json(429, { detail: 'later', code: 'too_many_connections' }, { 'retry-after': '600' });
    });
    const send = createSessionFetch({
      fetch: server.fetch,
      jar: new CookieJar(),
      maxRetries: 1,
      maxRetryAfter: 900,
      relogin: async () => false,
    });
    await expect(send('http://h/api/webui/ws-token', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.seen).toHaveLength(1);
  });

  it('gives each request the timeout, and the request that carries a new token none', async () => {
    const signals: Array<AbortSignal> = [];
    const send = createSessionFetch({
      fetch: async (input, init) => {
        signals.push(new Request(input, init).signal);
        return json(200, {});
      },
      jar: new CookieJar(),
      maxRetries: 0,
      maxRetryAfter: 60,
      timeoutMs: 1,
      relogin: async () => false,
    });
    await send('http://h/api/webui/auth/regenerate', { method: 'POST', signal: UNTIL_ANSWERED });
    await send('http://h/api/webui/health');
    await vi.waitFor(() => expect(signals[1]?.aborted).toBe(true));
    expect(signals[1]?.reason).toMatchObject({ name: 'TimeoutError' });
    // Had the change's request a timeout, it would have ended first: it started first.
    expect(signals[0]?.aborted).toBe(false);
  });

  it('logs in again once on a 401 and sends the new cookie with the retry', async () => {
    const jar = new CookieJar();
    jar.storeLine('bot_session=stale; Path=/');
    const server = scripted(
      () => json(401, { detail: 'stale', code: 'invalid_session' }),
      () => json(200, { is_first_setup: true }),
    );
    const relogin = vi.fn(async () => {
      jar.storeLine('bot_session=fresh; Max-Age=60; Path=/');
      return true;
    });
    const send = createSessionFetch({ fetch: server.fetch, jar, maxRetries: 0, maxRetryAfter: 60, relogin });
    expect((await send('http://h/api/webui/setup/status')).status).toBe(200);
    expect(relogin).toHaveBeenCalledTimes(1);
    expect(server.seen.map((entry) => entry.cookie)).toEqual(['bot_session=stale', 'bot_session=fresh']);
  });

  it('retries without a login of its own when another request logged in meanwhile', async () => {
    const jar = new CookieJar();
    const server = scripted(
      () => {
        // The other request's login lands while this one is under way.
        jar.storeLine('bot_session=fresh; Path=/');
        return json(401, { detail: 'none', code: 'not_authenticated' });
      },
      () => json(200, {}),
    );
    const relogin = vi.fn(async () => true);
    const send = createSessionFetch({ fetch: server.fetch, jar, maxRetries: 0, maxRetryAfter: 60, relogin });
    expect((await send('http://h/api/webui/setup/complete', { method: 'POST' })).status).toBe(200);
    expect(relogin).not.toHaveBeenCalled();
    expect(server.seen.map((entry) => entry.cookie)).toEqual([null, 'bot_session=fresh']);
  });

  it('gives up after one re-login, and does not re-login at all when it cannot', async () => {
    const unauthorized = () => json(401, { detail: 'no', code: 'invalid_session' });
    const relogin = vi.fn(async () => true);
    const send = createSessionFetch({
      fetch: scripted(unauthorized, unauthorized).fetch,
      jar: new CookieJar(),
      maxRetries: 0,
      maxRetryAfter: 60,
      relogin,
    });
    await expect(send('http://h/api/webui/setup/status')).rejects.toMatchObject({ status: 401, code: 'invalid_session' });
    expect(relogin).toHaveBeenCalledTimes(1);
  });

  it('files Set-Cookie of every answer, Max-Age=0 included', async () => {
    const jar = new CookieJar();
    const server = scripted(
      () => new Response('{}', { headers: { 'set-cookie': 'bot_session=t; Max-Age=604800; Path=/; HttpOnly' } }),
      () => new Response('{}', { headers: { 'set-cookie': 'bot_session=; Max-Age=0; Path=/; HttpOnly' } }),
    );
    const send = createSessionFetch({ fetch: server.fetch, jar, maxRetries: 0, maxRetryAfter: 60, relogin: async () => false });
    await send('http://h/api/webui/auth/verify', { method: 'POST', body: '{}' });
    expect(jar.get('bot_session')).toBe('t');
    await send('http://h/api/webui/auth/logout', { method: 'POST' });
    expect(jar.get('bot_session')).toBeUndefined();
  });

  it('with a bearer sends it on every request, with no cookie, files no Set-Cookie, and throws a 401 without logging in', async () => {
    const jar = new CookieJar();
    jar.storeLine('bot_session=left-over; Path=/');
    const server = scripted(
      () => new Response('{}', { headers: { 'set-cookie': 'bot_session=planted; Max-Age=60; Path=/' } }),
      () => json(401, { detail: 'revoked', code: 'invalid_session' }),
    );
    const relogin = vi.fn(async () => true);
    const send = createSessionFetch({ fetch: server.fetch, jar, maxRetries: 0, maxRetryAfter: 60, relogin, bearer: 'wk_secret' });
    expect((await send('http://h/api/webui/setup/status', { headers: { cookie: 'bot_session=by-hand' } })).status).toBe(200);
    await expect(send('http://h/api/webui/setup/status')).rejects.toMatchObject({ status: 401, code: 'invalid_session' });
    expect(relogin).not.toHaveBeenCalled();
    expect(server.seen.map(({ cookie, authorization, credentials }) => ({ cookie, authorization, credentials }))).toEqual([
      { cookie: null, authorization: 'Bearer wk_secret', credentials: 'omit' },
      { cookie: null, authorization: 'Bearer wk_secret', credentials: 'omit' },
    ]);
    // The jar is not the key client's: what it held stays, what the answer set is not filed.
    expect(jar.get('bot_session')).toBe('left-over');
  });
});

describe('WebuiError', () => {
  it('reads a body that is not JSON without losing the status', async () => {
    const error = await WebuiError.fromResponse(new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(error).toMatchObject({ status: 502, code: 'http_error', detail: 'Bad Gateway', body: '<html>Bad Gateway</html>' });
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('600')).toBe(600);
    expect(parseRetryAfter('Thu, 01 Jan 2030 00:01:00 GMT', Date.parse('2030-01-01T00:00:00Z'))).toBe(60);
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
