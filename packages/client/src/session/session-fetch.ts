import { requestSignal, sleepUnlessAborted } from './call-signal.js';
import type { CookieJar } from './cookie-jar.js';
import { WebuiError } from '../webui-error.js';

/** The fetch signature the client needs; the runtime's own fetch fits, and so does a test double. */
export type FetchLike = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export interface SessionFetchOptions {
  /** The runtime's fetch that actually sends. */
  fetch: FetchLike;
  jar: CookieJar;
  /** How many times one request is sent again after a 429. */
  maxRetries: number;
  /** A 429 asking to wait longer than this many seconds is thrown at once instead of waited out. */
  maxRetryAfter: number;
  /** Milliseconds each request may wait for its answer (default 0: no limit); past it, a DOMException TimeoutError. */
  timeoutMs?: number;
  /** Logs in again after a 401; resolves true when a fresh session cookie was obtained, rejects when `signal` aborts first. */
  relogin: (signal: AbortSignal | undefined) => Promise<boolean>;
  /** An API key: sent as `Authorization: Bearer` on every request; then no cookie is sent or filed, and a 401 is final. */
  bearer?: string | undefined;
  /** Waits out a 429; rejects with the signal's reason when it aborts first. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/**
 * Given as a request's signal, the request is neither cancelled nor timed out: the answer that carries a new token must arrive,
 * since the server may already have changed the token (see TokenChange).
 */
export const UNTIL_ANSWERED: AbortSignal = new AbortController().signal;

const VERIFY_PATH = /\/auth\/verify\/?$/;

/** Sends a request with the jar's cookies and files the answer's Set-Cookie; nothing else. */
export async function sendWithCookies(fetchImpl: FetchLike, jar: CookieJar, request: Request): Promise<Response> {
  const cookie = jar.header();
  if (cookie !== undefined) request.headers.set('cookie', cookie);
  const response = await fetchImpl(request);
  jar.store(response.headers);
  return response;
}

/** Sends a request with the key as its bearer; cookies are neither sent nor filed, so none can disagree with it. */
function sendWithBearer(fetchImpl: FetchLike, bearer: string, request: Request): Promise<Response> {
  request.headers.set('authorization', `Bearer ${bearer}`);
  request.headers.delete('cookie');
  return fetchImpl(request);
}

/**
 * The fetch given to hono's `hc`: keeps the bot_session cookie (or sends the API key instead), logs in again once on a 401
 * (the specification's "react to a 401 by calling /auth/verify again"), waits out short 429s,
 * and turns every other non-2xx answer into a thrown WebuiError, so `hc` calls resolve only with 2xx. Each request goes with the
 * caller's signal and its own timeout; the caller's signal also ends a re-login or a 429 wait it is in.
 */
export function createSessionFetch(options: SessionFetchOptions): FetchLike {
  const sleep = options.sleep ?? sleepUnlessAborted;
  return async (input, { signal: given, ...init } = {}) => {
    const { bearer } = options;
    const untilAnswered = given === UNTIL_ANSWERED;
    const signal = untilAnswered ? undefined : (given ?? undefined);
    // credentials: browsers keep the cookie themselves and need it for a cross-origin API; a key goes without it.
    const request = new Request(input, { ...init, credentials: bearer === undefined ? (init.credentials ?? 'include') : 'omit' });
    const isVerify = VERIFY_PATH.test(new URL(request.url).pathname);
    let reloggedIn = false;
    let retries = 0;
    for (;;) {
      signal?.throwIfAborted();
      const sentCookies = options.jar.header();
      const attempt = new Request(request.clone(), { signal: untilAnswered ? undefined : requestSignal(signal, options.timeoutMs ?? 0) });
      const response =
        bearer === undefined
          ? await sendWithCookies(options.fetch, options.jar, attempt)
          : await sendWithBearer(options.fetch, bearer, attempt);
      if (response.ok) return response;
      const error = await WebuiError.fromResponse(response);
      // A refused key stays refused: there is nothing to log in with.
      if (error.status === 401 && bearer === undefined && !isVerify && !reloggedIn) {
        reloggedIn = true;
        // Another request logged in again while this one was under way: its cookie is the answer.
        const current = options.jar.header();
        if (current !== undefined && current !== sentCookies) continue;
        if (await options.relogin(signal)) continue;
      }
      if (
        error.status === 429 &&
        retries < options.maxRetries &&
        error.retryAfter !== undefined &&
        error.retryAfter <= options.maxRetryAfter
      ) {
        retries++;
        await sleep(error.retryAfter * 1000, signal);
        continue;
      }
      throw error;
    }
  };
}
