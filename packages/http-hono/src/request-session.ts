import { StoreUnavailableError, type Admission, type Core, type Principal } from '@webui/core';
import type { Context } from 'hono';
import type { WebuiEnv } from './app-env.js';
import type { AttemptClient, AttemptGate, AttemptRefusal } from './attempt-gate.js';
import { bearerCredential } from './bearer-credential.js';
import { requestHeader } from './runtime-port.js';
import { sessionCookieCandidates } from './session-cookie.js';

/** How a request presented its credential: the bot_session cookie, or `Authorization: Bearer`. */
export type CredentialVia = 'cookie' | 'bearer';

export type RequestSession =
  | { kind: 'none' }
  | { kind: 'valid'; principal: Principal; via: CredentialVia }
  | { kind: 'invalid'; via: CredentialVia }
  /** A cookie and a bearer that are not the same secret: which one the client means is not ours to guess. */
  | { kind: 'conflict' }
  | ({ kind: 'refused' } & AttemptRefusal);

export const CONFLICTING_CREDENTIALS_DETAIL = 'The request carries a bot_session cookie and an Authorization bearer that differ; send one credential.';

/** The two headers a credential can come in. */
export interface PresentedCredentials {
  cookie: string | undefined;
  authorization: string | undefined;
}

/** What the check needs of the core: the access token for cookies, the token or a key for bearers. */
export type SessionAuthority = Pick<Core, 'tokens' | 'credentials'>;

/** The client of a request as the edge resolved it. */
export function attemptClientOf(c: Context<WebuiEnv>): AttemptClient {
  return { ip: c.get('clientIp'), attributable: c.get('clientAttributable') };
}

export function presentedCredentials(c: Context<WebuiEnv>): PresentedCredentials {
  return { cookie: requestHeader(c, 'cookie'), authorization: requestHeader(c, 'authorization') };
}

/** The session of a request, from its cookie or its bearer; see checkRequestSession. */
export function readRequestSession(c: Context<WebuiEnv>, gate: AttemptGate, authority: SessionAuthority): Promise<RequestSession> {
  return checkRequestSession(presentedCredentials(c), attemptClientOf(c), gate, authority);
}

/**
 * Checks the credential a request presents. A wrong value counts as a failed verification (DESIGN D4),
 * a banned client's credential is not even compared, so no endpoint is an oracle outside the ban. The
 * cookie carries the access token only (a browser session); a bearer may be the token or an API key.
 */
export async function checkRequestSession(presented: PresentedCredentials, client: AttemptClient, gate: AttemptGate, authority: SessionAuthority): Promise<RequestSession> {
  const bearer = bearerCredential(presented.authorization);
  const cookies = sessionCookieCandidates(presented.cookie);
  if (bearer !== null) {
    // Compared as presented, before any lookup: a disagreement says nothing about either secret.
    if (cookies.length > 0 && !cookies.some((cookie) => cookie.tokens.includes(bearer))) return { kind: 'conflict' };
    return checkBearer(bearer, client, gate, authority);
  }
  if (cookies.length === 0) return { kind: 'none' };
  let admitted: { admission: Admission; refusal: AttemptRefusal | null };
  try {
    admitted = await gate.admit(client);
  } catch (error) {
    if (error instanceof StoreUnavailableError) return sessionFromLastKnownRecord(cookies, authority, error);
    throw error;
  }
  const { admission, refusal } = admitted;
  if (refusal) return { kind: 'refused', ...refusal };
  const valid = await validCookieSession(cookies, authority);
  if (valid) {
    // Only an attempt that held a place in the global budget has anything to give back or remember.
    if (admission.hold !== null) await gate.succeeded(client, admission);
    return valid;
  }
  // Each distinct wrong value counts, so a request carrying many bot_session cookies is as many guesses.
  const distinct = [...new Map(cookies.map((cookie) => [cookie.raw, cookie])).values()];
  for (const [index, cookie] of distinct.entries()) {
    // The admission's place in the budget goes with the first value; the others count on their own.
    const outcome = await gate.failed(client, index === 0 ? admission : { ...admission, hold: null }, 'cookie', cookie);
    if (outcome.banned) return { kind: 'refused', retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' };
  }
  return { kind: 'invalid', via: 'cookie' };
}

async function checkBearer(bearer: string, client: AttemptClient, gate: AttemptGate, authority: SessionAuthority): Promise<RequestSession> {
  // An empty bearer guesses nothing: refused, not counted.
  if (bearer === '') return { kind: 'invalid', via: 'bearer' };
  const { admission, refusal } = await gate.admit(client);
  if (refusal) return { kind: 'refused', ...refusal };
  const authentication = await authority.credentials.authenticate(bearer);
  if (authentication.ok) {
    const { principal } = authentication;
    if (admission.hold !== null) await gate.succeeded(client, admission);
    if (principal.kind === 'key' && principal.firstUse) gate.keyFirstUsed(client, principal.name);
    return { kind: 'valid', principal, via: 'bearer' };
  }
  // A wrong bearer is a guess like a wrong cookie, each distinct value once per window (DESIGN D4).
  const outcome = await gate.failed(client, admission, 'bearer', { raw: bearer, tokens: [bearer] }, authentication.expiredKey);
  if (outcome.banned) return { kind: 'refused', retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' };
  return { kind: 'invalid', via: 'bearer' };
}

/**
 * While a shared store is lost, a cookie the last known record accepts keeps its session (the dashboard
 * polls /auth/check and would log its user out on a 503); state changes still fail at the store. A cookie
 * it does not accept could not be counted as a guess, so the request is refused with the store's error (503).
 */
async function sessionFromLastKnownRecord(cookies: ReadonlyArray<{ tokens: readonly string[] }>, authority: SessionAuthority, lost: StoreUnavailableError): Promise<RequestSession> {
  const valid = await validCookieSession(cookies, authority);
  if (valid) return valid;
  throw lost;
}

/** The session of the first cookie value that is the access token, or null. */
async function validCookieSession(cookies: ReadonlyArray<{ tokens: readonly string[] }>, authority: SessionAuthority): Promise<RequestSession | null> {
  for (const cookie of cookies) {
    for (const candidate of cookie.tokens) {
      // The status comes with the check: /auth/check needs it, and it costs no second read.
      const status = await authority.tokens.statusFor(candidate);
      if (status) return { kind: 'valid', principal: { kind: 'token', session: candidate, status }, via: 'cookie' };
    }
  }
  return null;
}
