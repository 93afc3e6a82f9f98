/** The client's options, and the checks createWebuiClient makes of them before it sends anything. */
import type { WebSocketConstructor } from './channel.js';
import type { FetchLike } from './session/session-fetch.js';

export const API_PREFIX = '/api/webui';

export interface WebuiClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8001` (a trailing `/api/webui` is accepted too). */
  baseUrl: string;
  /** The access token; with it the client logs in again by itself after a 401 (and forgets it once the server refuses it). */
  token?: string;
  /**
   * An API key (`wk_...`), sent as `Authorization: Bearer` on every request instead of a session: the client
   * never logs in and keeps no cookie, and a 401 (a revoked or expired key) is thrown. Not together with `token`.
   */
  apiKey?: string;
  /** Defaults to the runtime's fetch. */
  fetch?: FetchLike;
  /** Defaults to globalThis.WebSocket; on Node 20 pass `WebSocket` from the `ws` package. */
  WebSocket?: WebSocketConstructor;
  /** How many times a request is sent again after a 429 (default 2). */
  maxRetries?: number;
  /** A 429 whose Retry-After is longer than this many seconds is thrown at once (default 60; a ban lasts 600). */
  maxRetryAfter?: number;
  /**
   * Milliseconds each request waits for the server's answer before it is closed and its call rejects with a DOMException
   * `TimeoutError` (default 30 000; 0 waits forever). 429 waits are not counted; the answer that carries a new token is
   * always waited for (see TokenChange).
   */
  timeoutMs?: number;
}

/** The default of WebuiClientOptions.timeoutMs: far above any answer of a healthy server, well below a script's patience. */
export const DEFAULT_TIMEOUT_MS = 30_000;

export const KEY_CLIENT_LOGIN =
  'This client sends an API key on every request and does not log in; create another client with { token } for that.';

/** The API key of the options, refusing what cannot work: a key and a token together, or an empty key. */
export function checkedApiKey(options: WebuiClientOptions): string | undefined {
  const { apiKey, token } = options;
  if (apiKey === undefined) return undefined;
  if (token !== undefined)
    throw new TypeError(
      'createWebuiClient: pass either `token` (log in with the access token) or `apiKey` (send a key as the bearer), not both.',
    );
  if (apiKey === '') throw new TypeError('createWebuiClient: `apiKey` is empty; pass the key `POST /api/webui/keys` showed (wk_...).');
  return apiKey;
}

/** The timeout option, refusing what cannot be one. */
export function checkedTimeout(timeoutMs = DEFAULT_TIMEOUT_MS): number {
  if (!(timeoutMs >= 0))
    throw new TypeError(`createWebuiClient: \`timeoutMs\` must be 0 (no limit) or a positive number of milliseconds, not ${timeoutMs}.`);
  return timeoutMs;
}

/** `http://host:port`, whatever path or trailing slash the caller wrote after it. */
export function serverOrigin(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const base = path.endsWith(API_PREFIX) ? path.slice(0, -API_PREFIX.length) : path;
  return `${url.origin}${base}`;
}
