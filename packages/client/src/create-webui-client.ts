import type { WebuiApp } from '@webui/http-hono';
import { hc, type InferResponseType } from 'hono/client';
import { banTargetSegment } from './ban-target.js';
import { connectChannel, type ChannelOptions, type WebSocketConstructor, type WebuiChannel } from './channel.js';
import { CookieJar } from './cookie-jar.js';
import { keyNameSegment } from './key-name.js';
import { createSessionFetch, sendWithCookies, type FetchLike } from './session-fetch.js';
import { WebuiError } from './webui-error.js';

export const API_PREFIX = '/api/webui';
export const SESSION_COOKIE = 'bot_session';

/** hono's typed client of the whole server; `WebuiApi` is its `/api/webui` part. */
type WebuiRpc = ReturnType<typeof hc<WebuiApp>>;
export type WebuiApi = WebuiRpc['api']['webui'];

export type HealthResult = InferResponseType<WebuiApi['health']['$get']>;
export type SetupStatus = InferResponseType<WebuiApi['setup']['status']['$get']>;
export type SetupChangeResult = InferResponseType<WebuiApi['setup']['complete']['$post']>;
export type RegenerateResult = InferResponseType<WebuiApi['auth']['regenerate']['$post']>;
export type LogoutResult = InferResponseType<WebuiApi['auth']['logout']['$post']>;
export type TokenSource = SetupStatus['token_source'];
/** One client key with counted failures or a running ban: `banned_until` and `last_attempt` are ISO 8601 or null. */
export type BanEntry = InferResponseType<WebuiApi['security']['bans']['$get']>['bans'][number];
/** One API key as listed, never the key itself: `created_at` ISO 8601, `expires_at` and `last_used_at` ISO 8601 or null (never). */
export type KeyEntry = InferResponseType<WebuiApi['keys']['$get']>['keys'][number];
/** `read`: GET endpoints and the WebSocket; `admin`: everything but managing keys and changing the access token. */
export type KeyScope = KeyEntry['scope'];

// Declared by hand: hc infers `{}` for these routes, whose handlers also return untyped Responses (see README).
export type VerifyResult =
  | { valid: true; message: string; is_first_setup: boolean; token_source: TokenSource; requires_custom_token: boolean }
  | { valid: false; message: string; remaining_attempts?: number };
export type CheckResult =
  | { authenticated: true; token_source: TokenSource; requires_custom_token: boolean; key?: { name: string; scope: KeyScope } }
  | { authenticated: false };
export type UpdateTokenResult = { success: true; message: string };
export type WsTicketResult = { success: true; token: string; expires_in: number } | { success: false; message: string };
export type BanLiftResult = { success: true; lifted: BanEntry[] };
/** The answer to createKey: the entry and the key itself, which the server shows only in this answer. */
export type KeyCreatedResult = KeyEntry & { success: true; key: string; message: string };
export type KeyRevokedResult = { success: true; revoked: KeyEntry };

export interface CreateKeyOptions {
  /** 1 to 64 characters: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
  name: string;
  /** Defaults to `read`. */
  scope?: KeyScope;
  /** A lifetime such as `90d` (a whole number and s, m, h, d or w); absent or null: never expires. */
  expires?: string | null;
}

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
}

export interface WebuiClient {
  /** hono's typed client of `/api/webui`, sharing the cookie (or the key), re-login and retries; non-2xx answers throw WebuiError. */
  readonly api: WebuiApi;
  /** The token the client logs in with, once known. */
  readonly token: string | undefined;
  /** Remembers a token for the next re-login (say, read again from webui.json after someone rotated it); does not log in now. A key client throws TypeError. */
  setToken(token: string): void;
  health(): Promise<HealthResult>;
  /** POST /auth/verify; a wrong token resolves with `valid: false`, a ban throws WebuiError 429. A key client throws TypeError. */
  login(token?: string): Promise<VerifyResult>;
  check(): Promise<CheckResult>;
  /** POST /auth/update, then logs in with the new token. A weak token throws WebuiError 400 `weak_token` (`body.violations`). */
  updateToken(newToken: string): Promise<UpdateTokenResult>;
  /** POST /auth/regenerate, then logs in with the new token; resolves with it (shown only this once). */
  regenerateToken(): Promise<string>;
  /** POST /auth/logout; the client also forgets the token, so it does not log in again by itself. */
  logout(): Promise<LogoutResult>;
  setupStatus(): Promise<SetupStatus>;
  completeSetup(): Promise<SetupChangeResult>;
  resetSetup(): Promise<SetupChangeResult>;
  /** GET /security/bans: every client key with failures counted in the 5-minute window or a running ban, banned first. */
  listBans(): Promise<BanEntry[]>;
  /**
   * DELETE /security/bans/{target}: lifts the bans and clears the counts `target` covers (`all`, an address, a CIDR
   * or a key as listed; percent-encoded here) and resolves with what was lifted, empty when nothing matched.
   * A target the server cannot read throws WebuiError 400 `invalid_ban_target`; `''`, `.` and `..` throw TypeError.
   */
  liftBan(target: string): Promise<BanEntry[]>;
  /** GET /keys: every API key with its scope and times, never the keys themselves. */
  listKeys(): Promise<KeyEntry[]>;
  /**
   * POST /keys (the access token's session only: a key client gets WebuiError 403 `insufficient_scope`); resolves
   * with the entry and `key`, shown only this once. Refusals: 400 `invalid_key_name`, `invalid_expiry`; 409 `key_name_taken`, `too_many_keys`.
   */
  createKey(options: CreateKeyOptions): Promise<KeyCreatedResult>;
  /**
   * DELETE /keys/{name}, the name percent-encoded here; resolves with the revoked entry, refused from its next request on.
   * No such key: WebuiError 404 `unknown_key`; `''`, `.` and `..` throw TypeError.
   */
  revokeKey(name: string): Promise<KeyEntry>;
  /** GET /ws-token; without a session the client logs in again once if it knows the token. */
  wsTicket(): Promise<WsTicketResult>;
  /** A ticket, then the unified channel at /api/webui/ws, resolved once system/ready arrived. */
  openChannel(options?: ChannelOptions): Promise<WebuiChannel>;
}

/** A typed client of the WebUI management API for scripts; keeps the session cookie itself, or sends an API key instead. */
export function createWebuiClient(options: WebuiClientOptions): WebuiClient {
  const origin = serverOrigin(options.baseUrl);
  const send: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const jar = new CookieJar();
  const apiKey = checkedApiKey(options);
  let token = options.token;
  let relogin: Promise<boolean> | undefined;

  const verifyDirect = async (candidate: string): Promise<boolean> => {
    const request = new Request(`${origin}${API_PREFIX}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: candidate }),
      credentials: 'include',
    });
    const response = await sendWithCookies(send, jar, request);
    if (!response.ok) throw await WebuiError.fromResponse(response);
    return ((await response.json()) as VerifyResult).valid;
  };

  const api = hc<WebuiApp>(origin, {
    fetch: createSessionFetch({
      fetch: send,
      jar,
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfter: options.maxRetryAfter ?? 60,
      bearer: apiKey,
      relogin() {
        const known = token;
        if (known === undefined) return Promise.resolve(false);
        // One login for every request that hit the same 401.
        relogin ??= verifyDirect(known)
          .then((valid) => {
            // A token the server refused is not tried again: each try counts toward the ban (D2, D4).
            if (!valid && token === known) token = undefined;
            return valid;
          })
          .finally(() => (relogin = undefined));
        return relogin;
      },
    }),
  }).api.webui;

  const login = async (candidate = token): Promise<VerifyResult> => {
    if (apiKey !== undefined) throw new TypeError(KEY_CLIENT_LOGIN);
    if (candidate === undefined) throw new TypeError('login() needs a token: pass it here or as createWebuiClient({ token }).');
    const response = await api.auth.verify.$post({ json: { token: candidate } });
    const result = (await response.json()) as VerifyResult;
    if (result.valid) token = candidate;
    return result;
  };

  /** After update and regenerate the server cleared the cookie: log in with the new token at once. */
  const loginAfterRotation = async (newToken: string) => {
    token = newToken;
    const result = await login(newToken);
    if (!result.valid) throw new WebuiError({ status: 401, code: 'login_failed', detail: `The token was changed but logging in with it failed: ${result.message}` });
  };

  const wsTicket = async (): Promise<WsTicketResult> => {
    const ticket = async () => (await (await api['ws-token'].$get()).json()) as WsTicketResult;
    const first = await ticket();
    if (first.success || token === undefined) return first;
    // /ws-token answers 200 success:false instead of 401 (the specification); treat it as the 401 it stands for.
    return (await login()).valid ? ticket() : first;
  };

  return {
    api,
    get token() {
      return token;
    },
    setToken(newToken) {
      if (apiKey !== undefined) throw new TypeError(KEY_CLIENT_LOGIN);
      token = newToken;
    },
    health: async () => (await api.health.$get()).json(),
    login,
    check: async () => (await (await api.auth.check.$get()).json()) as CheckResult,
    async updateToken(newToken) {
      const result = (await (await api.auth.update.$post({ json: { new_token: newToken } })).json()) as UpdateTokenResult;
      await loginAfterRotation(newToken);
      return result;
    },
    async regenerateToken() {
      const result = await (await api.auth.regenerate.$post()).json();
      await loginAfterRotation(result.token);
      return result.token;
    },
    async logout() {
      token = undefined;
      return (await api.auth.logout.$post()).json();
    },
    setupStatus: async () => (await api.setup.status.$get()).json(),
    completeSetup: async () => (await api.setup.complete.$post()).json(),
    resetSetup: async () => (await api.setup.reset.$post()).json(),
    listBans: async () => (await (await api.security.bans.$get()).json()).bans,
    async liftBan(target) {
      const response = await api.security.bans[':key'].$delete({ param: { key: banTargetSegment(target) } });
      return ((await response.json()) as BanLiftResult).lifted;
    },
    listKeys: async () => (await (await api.keys.$get()).json()).keys,
    async createKey({ name, scope, expires }) {
      // JSON leaves undefined fields out: the server's defaults (read, never) apply.
      const response = await api.keys.$post({ json: { name, scope, expires } });
      return (await response.json()) as KeyCreatedResult;
    },
    async revokeKey(name) {
      const response = await api.keys[':name'].$delete({ param: { name: keyNameSegment(name) } });
      return ((await response.json()) as KeyRevokedResult).revoked;
    },
    wsTicket,
    async openChannel(channelOptions) {
      const WebSocketImpl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
      if (!WebSocketImpl) throw new TypeError('No WebSocket in this runtime: pass createWebuiClient({ WebSocket }) (on Node 20, from the `ws` package).');
      const ticket = await wsTicket();
      if (!ticket.success) throw new WebuiError({ status: 401, code: 'not_authenticated', detail: ticket.message });
      const url = new URL(`${origin}${API_PREFIX}/ws`);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('token', ticket.token);
      return connectChannel(url.toString(), WebSocketImpl, channelOptions);
    },
  };
}

const KEY_CLIENT_LOGIN = 'This client sends an API key on every request and does not log in; create another client with { token } for that.';

/** The API key of the options, refusing what cannot work: a key and a token together, or an empty key. */
function checkedApiKey(options: WebuiClientOptions): string | undefined {
  const { apiKey, token } = options;
  if (apiKey === undefined) return undefined;
  if (token !== undefined) throw new TypeError('createWebuiClient: pass either `token` (log in with the access token) or `apiKey` (send a key as the bearer), not both.');
  if (apiKey === '') throw new TypeError('createWebuiClient: `apiKey` is empty; pass the key `POST /api/webui/keys` showed (wk_...).');
  return apiKey;
}

/** `http://host:port`, whatever path or trailing slash the caller wrote after it. */
function serverOrigin(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const base = path.endsWith(API_PREFIX) ? path.slice(0, -API_PREFIX.length) : path;
  return `${url.origin}${base}`;
}
