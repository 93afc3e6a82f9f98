import type { CookieJar } from './cookie-jar.js';
import { WebuiError } from './webui-error.js';

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
  /** Logs in again after a 401; resolves true when a fresh session cookie was obtained. */
  relogin: () => Promise<boolean>;
  sleep?: (ms: number) => Promise<void>;
}

const VERIFY_PATH = /\/auth\/verify\/?$/;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends a request with the jar's cookies and files the answer's Set-Cookie; nothing else. */
export async function sendWithCookies(fetchImpl: FetchLike, jar: CookieJar, request: Request): Promise<Response> {
  const cookie = jar.header();
  if (cookie !== undefined) request.headers.set('cookie', cookie);
  const response = await fetchImpl(request);
  jar.store(response.headers);
  return response;
}

/**
 * The fetch given to hono's `hc`: keeps the bot_session cookie, logs in again once on a 401
 * (the specification's "react to a 401 by calling /auth/verify again"), waits out short 429s,
 * and turns every other non-2xx answer into a thrown WebuiError, so `hc` calls resolve only with 2xx.
 */
export function createSessionFetch(options: SessionFetchOptions): FetchLike {
  const sleep = options.sleep ?? defaultSleep;
  return async (input, init) => {
    // credentials: browsers keep the cookie themselves and need it for a cross-origin API.
    const request = new Request(input, { ...init, credentials: init?.credentials ?? 'include' });
    const isVerify = VERIFY_PATH.test(new URL(request.url).pathname);
    let reloggedIn = false;
    let retries = 0;
    for (;;) {
      const sentCookies = options.jar.header();
      const response = await sendWithCookies(options.fetch, options.jar, request.clone());
      if (response.ok) return response;
      const error = await WebuiError.fromResponse(response);
      if (error.status === 401 && !isVerify && !reloggedIn) {
        reloggedIn = true;
        // Another request logged in again while this one was under way: its cookie is the answer.
        const current = options.jar.header();
        if (current !== undefined && current !== sentCookies) continue;
        if (await options.relogin()) continue;
      }
      if (error.status === 429 && retries < options.maxRetries && error.retryAfter !== undefined && error.retryAfter <= options.maxRetryAfter) {
        retries++;
        await sleep(error.retryAfter * 1000);
        continue;
      }
      throw error;
    }
  };
}
