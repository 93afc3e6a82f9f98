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
  /** An API key: sent as `Authorization: Bearer` on every request; then no cookie is sent or filed, and a 401 is final. */
  bearer?: string | undefined;
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

/** Sends a request with the key as its bearer; cookies are neither sent nor filed, so none can disagree with it. */
function sendWithBearer(fetchImpl: FetchLike, bearer: string, request: Request): Promise<Response> {
  request.headers.set('authorization', `Bearer ${bearer}`);
  request.headers.delete('cookie');
  return fetchImpl(request);
}

/**
 * The fetch given to hono's `hc`: keeps the bot_session cookie (or sends the API key instead), logs in again once on a 401
 * (the specification's "react to a 401 by calling /auth/verify again"), waits out short 429s,
 * and turns every other non-2xx answer into a thrown WebuiError, so `hc` calls resolve only with 2xx.
 */
export function createSessionFetch(options: SessionFetchOptions): FetchLike {
  const sleep = options.sleep ?? defaultSleep;
  return async (input, init) => {
    const { bearer } = options;
    // credentials: browsers keep the cookie themselves and need it for a cross-origin API; a key goes without it.
    const request = new Request(input, { ...init, credentials: bearer === undefined ? (init?.credentials ?? 'include') : 'omit' });
    const isVerify = VERIFY_PATH.test(new URL(request.url).pathname);
    let reloggedIn = false;
    let retries = 0;
    for (;;) {
      const sentCookies = options.jar.header();
      const response =
        bearer === undefined
          ? await sendWithCookies(options.fetch, options.jar, request.clone())
          : await sendWithBearer(options.fetch, bearer, request.clone());
      if (response.ok) return response;
      const error = await WebuiError.fromResponse(response);
      // A refused key stays refused: there is nothing to log in with.
      if (error.status === 401 && bearer === undefined && !isVerify && !reloggedIn) {
        reloggedIn = true;
        // Another request logged in again while this one was under way: its cookie is the answer.
        const current = options.jar.header();
        if (current !== undefined && current !== sentCookies) continue;
        if (await options.relogin()) continue;
      }
      if (
        error.status === 429 &&
        retries < options.maxRetries &&
        error.retryAfter !== undefined &&
        error.retryAfter <= options.maxRetryAfter
      ) {
        retries++;
        await sleep(error.retryAfter * 1000);
        continue;
      }
      throw error;
    }
  };
}
