import type { WebuiApp, WireBody } from '@webui/http-hono';
import { hc } from 'hono/client';
import { banTargetSegment } from './url-segments/ban-target.js';
import { API_PREFIX, checkedApiKey, checkedTimeout, KEY_CLIENT_LOGIN, serverOrigin, type WebuiClientOptions } from './client-options.js';
import { requestSignal, type CallOptions } from './session/call-signal.js';
import { connectChannel, type ChannelOptions, type WebSocketConstructor, type WebuiChannel } from './channel.js';
import { CookieJar } from './session/cookie-jar.js';
import { keyNameSegment } from './url-segments/key-name.js';
import { createSessionFetch, sendWithCookies, type FetchLike } from './session/session-fetch.js';
import { sharedRun } from './session/shared-run.js';
import { changeToken, type TokenChange } from './session/token-change.js';
import { WebuiError } from './webui-error.js';

export const SESSION_COOKIE = 'bot_session';

/** hono's typed client of the whole server; `WebuiApi` is its `/api/webui` part. */
type WebuiRpc = ReturnType<typeof hc<WebuiApp>>;
export type WebuiApi = WebuiRpc['api']['webui'];

// Every answer's type is the server's schema of it (@webui/http-hono's schemas, which the OpenAPI document shows too).
export type HealthResult = WireBody<'HealthResponse'>;
export type VerifyResult = WireBody<'VerifyResponse'>;
/** `key` names the API key and its scope when the client sends one. */
export type CheckResult = WireBody<'CheckResponse'>;
export type UpdateTokenResult = WireBody<'UpdateTokenResponse'>;
export type RegenerateResult = WireBody<'RegenerateResponse'>;
export type LogoutResult = WireBody<'LogoutResponse'>;
export type SetupStatus = WireBody<'SetupStatusResponse'>;
export type SetupChangeResult = WireBody<'SetupChangeResponse'>;
export type TokenSource = WireBody<'TokenSource'>;
export type WsTicketResult = WireBody<'WsTokenResponse'>;
/** One client key with counted failures or a running ban: `banned_until` and `last_attempt` are ISO 8601 or null. */
export type BanEntry = WireBody<'BanEntryBody'>;
export type BanListResult = WireBody<'BanListResponse'>;
export type BanLiftResult = WireBody<'BanLiftResponse'>;
/** One API key as listed, never the key itself: `created_at` ISO 8601, `expires_at` and `last_used_at` ISO 8601 or null (never). */
export type KeyEntry = WireBody<'ApiKeyBody'>;
/** `read`: GET endpoints and the WebSocket; `admin`: everything but managing keys and changing the access token. */
export type KeyScope = WireBody<'KeyScope'>;
export type KeyListResult = WireBody<'KeyListResponse'>;
/** The answer to createKey: the entry and the key itself, which the server shows only in this answer. */
export type KeyCreatedResult = WireBody<'KeyCreatedResponse'>;
export type KeyRevokedResult = WireBody<'KeyRevokedResponse'>;

/** The body of a 2xx answer (every other status throws WebuiError first), typed by the schema the server answers with. */
async function bodyOf<T>(response: Response | Promise<Response>): Promise<T> {
  return (await (await response).json()) as T;
}

export interface CreateKeyOptions {
  /** 1 to 64 characters: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
  name: string;
  /** Defaults to `read`. */
  scope?: KeyScope;
  /** A lifetime such as `90d` (a whole number and s, m, h, d or w); absent or null: never expires. */
  expires?: string | null;
}

/** Every call takes a last `{ signal }` (CallOptions): aborting it rejects the call with the signal's reason. */
export interface WebuiClient {
  /**
   * hono's typed client of `/api/webui`, sharing the cookie (or the key), re-login, retries and the timeout; non-2xx answers
   * throw WebuiError. A signal goes as `{ init: { signal } }`.
   */
  readonly api: WebuiApi;
  /** The token the client logs in with, once known. */
  readonly token: string | undefined;
  /**
   * Remembers a token for the next re-login (say, read again from webui.json after someone rotated it); does not log in now. A key client
   * throws TypeError.
   */
  setToken(token: string): void;
  health(options?: CallOptions): Promise<HealthResult>;
  /** POST /auth/verify; a wrong token resolves with `valid: false`, a ban throws WebuiError 429. A key client throws TypeError. */
  login(token?: string, options?: CallOptions): Promise<VerifyResult>;
  check(options?: CallOptions): Promise<CheckResult>;
  /**
   * POST /auth/update, then logs in with the new token; resolves once the server changed it, whether that login worked or not.
   * A weak token throws WebuiError 400 `weak_token` (`body.violations`).
   */
  updateToken(newToken: string, options?: CallOptions): Promise<TokenChange>;
  /**
   * POST /auth/regenerate, then logs in with the new token; resolves with it (shown only this once) whether that login worked
   * or not: store `token` first.
   */
  regenerateToken(options?: CallOptions): Promise<TokenChange>;
  /** POST /auth/logout; the client also forgets the token, so it does not log in again by itself. */
  logout(options?: CallOptions): Promise<LogoutResult>;
  setupStatus(options?: CallOptions): Promise<SetupStatus>;
  completeSetup(options?: CallOptions): Promise<SetupChangeResult>;
  resetSetup(options?: CallOptions): Promise<SetupChangeResult>;
  /** GET /security/bans: every client key with failures counted in the 5-minute window or a running ban, banned first. */
  listBans(options?: CallOptions): Promise<BanEntry[]>;
  /**
   * DELETE /security/bans/{target}: lifts the bans and clears the counts `target` covers (`all`, an address, a CIDR
   * or a key as listed; percent-encoded here) and resolves with what was lifted, empty when nothing matched.
   * A target the server cannot read throws WebuiError 400 `invalid_ban_target`; `''`, `.` and `..` throw TypeError.
   */
  liftBan(target: string, options?: CallOptions): Promise<BanEntry[]>;
  /** GET /keys: every API key with its scope and times, never the keys themselves. */
  listKeys(options?: CallOptions): Promise<KeyEntry[]>;
  /**
   * POST /keys (the access token's session only: a key client gets WebuiError 403 `insufficient_scope`); resolves
   * with the entry and `key`, shown only this once. Refusals: 400 `invalid_key_name`, `invalid_expiry`; 409 `key_name_taken`,
   * `too_many_keys`.
   */
  createKey(key: CreateKeyOptions, options?: CallOptions): Promise<KeyCreatedResult>;
  /**
   * DELETE /keys/{name}, the name percent-encoded here; resolves with the revoked entry, refused from its next request on.
   * No such key: WebuiError 404 `unknown_key`; `''`, `.` and `..` throw TypeError.
   */
  revokeKey(name: string, options?: CallOptions): Promise<KeyEntry>;
  /** GET /ws-token; without a session the client logs in again once if it knows the token. */
  wsTicket(options?: CallOptions): Promise<WsTicketResult>;
  /**
   * A ticket, then the unified channel at /api/webui/ws, resolved once system/ready arrived. `signal` covers the channel's
   * whole life: aborted before ready, the call rejects and the socket is closed; after, the channel closes with 1000.
   */
  openChannel(options?: ChannelOptions): Promise<WebuiChannel>;
}

/** A typed client of the WebUI management API for scripts; keeps the session cookie itself, or sends an API key instead. */
export function createWebuiClient(options: WebuiClientOptions): WebuiClient {
  const origin = serverOrigin(options.baseUrl);
  const send: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const jar = new CookieJar();
  const apiKey = checkedApiKey(options);
  const timeoutMs = checkedTimeout(options.timeoutMs);
  let token = options.token;

  const verifyDirect = async (candidate: string, signal: AbortSignal): Promise<boolean> => {
    const request = new Request(`${origin}${API_PREFIX}/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: candidate }),
      credentials: 'include',
      signal: requestSignal(signal, timeoutMs),
    });
    const response = await sendWithCookies(send, jar, request);
    if (!response.ok) throw await WebuiError.fromResponse(response);
    return (await bodyOf<VerifyResult>(response)).valid;
  };

  // One login for every request that hit the same 401, cancelled when every one of them gave up.
  const relogin = sharedRun(async (signal) => {
    const known = token;
    if (known === undefined) return false;
    const valid = await verifyDirect(known, signal);
    // A token the server refused is not tried again: each try counts toward the ban (docs/decisions/0002-failed-verification-and-bans.md, docs/decisions/0004-guessing-through-the-cookie.md).
    if (!valid && token === known) token = undefined;
    return valid;
  });

  const api = hc<WebuiApp>(origin, {
    fetch: createSessionFetch({
      fetch: send,
      jar,
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfter: options.maxRetryAfter ?? 60,
      timeoutMs,
      bearer: apiKey,
      relogin,
    }),
  }).api.webui;

  /** hc's per-request options carrying the call's signal. */
  const withSignal = (call: CallOptions | undefined) => ({ init: { signal: call?.signal ?? null } });

  const login = async (candidate = token, call?: CallOptions): Promise<VerifyResult> => {
    if (apiKey !== undefined) throw new TypeError(KEY_CLIENT_LOGIN);
    if (candidate === undefined) throw new TypeError('login() needs a token: pass it here or as createWebuiClient({ token }).');
    const result = await bodyOf<VerifyResult>(api.auth.verify.$post({ json: { token: candidate } }, withSignal(call)));
    if (result.valid) token = candidate;
    return result;
  };

  /** After update and regenerate the server cleared the cookie: log in with the new token at once. */
  const loginAfterChange = async (newToken: string, signal: AbortSignal | undefined): Promise<void> => {
    const result = await login(newToken, { signal });
    if (!result.valid)
      throw new WebuiError({
        status: 401,
        code: 'login_failed',
        detail: `The token was changed but logging in with it failed: ${result.message}`,
      });
  };

  const wsTicket = async (call?: CallOptions): Promise<WsTicketResult> => {
    const ticket = () => bodyOf<WsTicketResult>(api['ws-token'].$get(undefined, withSignal(call)));
    const first = await ticket();
    if (first.success || token === undefined) return first;
    // /ws-token answers 200 success:false instead of 401 (the specification); treat it as the 401 it stands for.
    return (await login(token, call)).valid ? ticket() : first;
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
    health: (call) => bodyOf<HealthResult>(api.health.$get(undefined, withSignal(call))),
    login,
    check: (call) => bodyOf<CheckResult>(api.auth.check.$get(undefined, withSignal(call))),
    updateToken(newToken, call) {
      return changeToken(
        async (signal) => {
          await bodyOf<UpdateTokenResult>(api.auth.update.$post({ json: { new_token: newToken } }, { init: { signal } }));
          token = newToken;
          return newToken;
        },
        loginAfterChange,
        call?.signal,
      );
    },
    regenerateToken(call) {
      return changeToken(
        async (signal) => {
          const { token: regenerated } = await bodyOf<RegenerateResult>(api.auth.regenerate.$post(undefined, { init: { signal } }));
          token = regenerated;
          return regenerated;
        },
        loginAfterChange,
        call?.signal,
      );
    },
    async logout(call) {
      // Aborted before it was sent, nothing changed: the token stays known.
      call?.signal?.throwIfAborted();
      token = undefined;
      return bodyOf<LogoutResult>(api.auth.logout.$post(undefined, withSignal(call)));
    },
    setupStatus: (call) => bodyOf<SetupStatus>(api.setup.status.$get(undefined, withSignal(call))),
    completeSetup: (call) => bodyOf<SetupChangeResult>(api.setup.complete.$post(undefined, withSignal(call))),
    resetSetup: (call) => bodyOf<SetupChangeResult>(api.setup.reset.$post(undefined, withSignal(call))),
    listBans: async (call) => (await bodyOf<BanListResult>(api.security.bans.$get(undefined, withSignal(call)))).bans,
    async liftBan(target, call) {
      const segment = banTargetSegment(target);
      return (await bodyOf<BanLiftResult>(api.security.bans[':key'].$delete({ param: { key: segment } }, withSignal(call)))).lifted;
    },
    listKeys: async (call) => (await bodyOf<KeyListResult>(api.keys.$get(undefined, withSignal(call)))).keys,
    async createKey({ name, scope, expires }, call) {
      // JSON leaves undefined fields out: the server's defaults (read, never) apply.
      return bodyOf<KeyCreatedResult>(api.keys.$post({ json: { name, scope, expires } }, withSignal(call)));
    },
    async revokeKey(name, call) {
      const segment = keyNameSegment(name);
      return (await bodyOf<KeyRevokedResult>(api.keys[':name'].$delete({ param: { name: segment } }, withSignal(call)))).revoked;
    },
    wsTicket,
    async openChannel(channelOptions = {}) {
      const WebSocketImpl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
      if (!WebSocketImpl)
        throw new TypeError('No WebSocket in this runtime: pass createWebuiClient({ WebSocket }) (on Node 20, from the `ws` package).');
      const ticket = await wsTicket(channelOptions);
      if (!ticket.success) throw new WebuiError({ status: 401, code: 'not_authenticated', detail: ticket.message });
      const url = new URL(`${origin}${API_PREFIX}/ws`);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('token', ticket.token);
      return connectChannel(url.toString(), WebSocketImpl, channelOptions);
    },
  };
}
