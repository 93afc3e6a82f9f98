import { UNTIL_ANSWERED } from './session-fetch.js';

/**
 * What `updateToken` and `regenerateToken` resolve with once the server changed the token: they never reject after that,
 * so the new token (which `/auth/regenerate` shows only in its answer) cannot be lost to a failed login.
 */
export interface TokenChange {
  /** The access token in force now. Store it before anything else: the old one is refused from now on. */
  token: string;
  /** Whether the client logged in with it again. When false, the client still knows it and logs in by itself on the next call. */
  loggedIn: boolean;
  /**
   * Why that login failed when `loggedIn` is false: a WebuiError (503 `store_unavailable`, 429 `too_many_attempts`, ...),
   * the runtime's network error (a TypeError), or the abort's or the timeout's DOMException.
   */
  loginError?: Error;
}

/**
 * Sends a change of the token, then logs in with the new one. The signal stops the call only before the change is sent
 * (nothing changed: it rejects) and during the login after it (it resolves, `loggedIn: false`); the change itself runs
 * until its answer is in, since the server may already have changed the token.
 */
export async function changeToken(
  send: (signal: AbortSignal) => Promise<string>,
  login: (token: string, signal: AbortSignal | undefined) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<TokenChange> {
  signal?.throwIfAborted();
  const token = await send(UNTIL_ANSWERED);
  try {
    await login(token, signal);
    return { token, loggedIn: true };
  } catch (error) {
    return { token, loggedIn: false, loginError: error instanceof Error ? error : new Error(String(error)) };
  }
}
