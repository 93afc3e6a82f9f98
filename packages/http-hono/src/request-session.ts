import { StoreUnavailableError, type Admission, type Core, type Principal } from '@webui/core';
import type { Context } from 'hono';
import type { WebuiEnv } from './app-env.js';
import { countAmbiguousAttempt, type AmbiguousCredentials } from './ambiguous-credentials.js';
import type { AttemptClient, AttemptGate, AttemptRefusal } from './attempt-gate.js';
import { bearerCredential, holdsSeveralCredentials } from './bearer-credential.js';
import { requestHeader } from './runtime-port.js';
import { sessionCookieCandidates } from './session-cookie.js';

/** How a request presented its credential: the bot_session cookie, or `Authorization: Bearer`. */
export type CredentialVia = 'cookie' | 'bearer';

export type RequestSession =
  | { kind: 'none' }
  | { kind: 'valid'; principal: Principal; via: CredentialVia }
  | { kind: 'invalid'; via: CredentialVia }
  /** More than one credential (see AmbiguousCredentials): refused with none of them compared, counted as one guess. */
  | { kind: 'ambiguous'; code: AmbiguousCredentials }
  | ({ kind: 'refused' } & AttemptRefusal);

/** The two headers a credential can come in. */
export interface PresentedCredentials {
  cookie: string | undefined;
  authorization: string | undefined;
}

/** What the check needs of the core: the access token for cookies, the token or a key for bearers. */
export type SessionAuthority = Pick<Core, 'tokens' | 'credentials'>;

/** The client of a request as the edge resolved it. */
export function attemptClientOf(c: Context<WebuiEnv>): AttemptClient {
  return { ip: c.get('clientIp') };
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
 * A request presenting more than one credential has none compared and counts as one guess.
 */
export async function checkRequestSession(presented: PresentedCredentials, client: AttemptClient, gate: AttemptGate, authority: SessionAuthority): Promise<RequestSession> {
  const bearer = bearerCredential(presented.authorization);
  const cookies = sessionCookieCandidates(presented.cookie);
  const ambiguity = ambiguityOf(presented.authorization, bearer, cookies);
  if (ambiguity) {
    const refusal = await countAmbiguousAttempt(client, gate, ambiguity.how);
    return refusal ? { kind: 'refused', ...refusal } : { kind: 'ambiguous', code: ambiguity.code };
  }
  if (bearer !== null) return checkBearer(bearer, client, gate, authority);
  const [cookie] = cookies;
  if (cookie === undefined) return { kind: 'none' };
  let admitted: { admission: Admission; refusal: AttemptRefusal | null };
  try {
    admitted = await gate.admit(client);
  } catch (error) {
    if (error instanceof StoreUnavailableError) return sessionFromLastKnownRecord(cookie, authority, error);
    throw error;
  }
  const { admission, refusal } = admitted;
  if (refusal) return { kind: 'refused', ...refusal };
  const valid = await validCookieSession(cookie, authority);
  if (valid) {
    // Only an attempt that held a place in the global budget has anything to give back or remember.
    if (admission.hold !== null) await gate.succeeded(client, admission);
    return valid;
  }
  const outcome = await gate.failed(client, admission, 'cookie', cookie);
  if (outcome.banned) return { kind: 'refused', retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' };
  return { kind: 'invalid', via: 'cookie' };
}

/**
 * Why a request presents more than one credential, judged on the values as presented, before any
 * lookup: two bot_session cookies (even equal ones: we never set two), two Authorization fields, or a
 * cookie and a bearer that differ (a disagreement says nothing about either secret).
 */
function ambiguityOf(authorization: string | undefined, bearer: string | null, cookies: ReadonlyArray<{ tokens: readonly string[] }>): { code: AmbiguousCredentials; how: 'cookie' | 'bearer' } | null {
  if (cookies.length > 1) return { code: 'duplicate_credentials', how: 'cookie' };
  if (holdsSeveralCredentials(authorization)) return { code: 'duplicate_credentials', how: 'bearer' };
  const [cookie] = cookies;
  if (bearer !== null && cookie !== undefined && !cookie.tokens.includes(bearer)) return { code: 'conflicting_credentials', how: 'bearer' };
  return null;
}

async function checkBearer(bearer: string, client: AttemptClient, gate: AttemptGate, authority: SessionAuthority): Promise<RequestSession> {
  // An empty bearer guesses nothing: refused, not counted.
  if (bearer === '') return { kind: 'invalid', via: 'bearer' };
  // The bearer goes to admission: a live API key is not held to the global budget.
  const { admission, refusal } = await gate.admit(client, bearer);
  if (refusal) return { kind: 'refused', ...refusal };
  const authentication = await authority.credentials.authenticate(bearer);
  if (authentication.ok) {
    const { principal } = authentication;
    if (admission.hold !== null) await gate.succeeded(client, admission, principal.kind);
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
async function sessionFromLastKnownRecord(cookie: { tokens: readonly string[] }, authority: SessionAuthority, lost: StoreUnavailableError): Promise<RequestSession> {
  const valid = await validCookieSession(cookie, authority);
  if (valid) return valid;
  throw lost;
}

/** The session of the cookie when it is the access token (as sent, or percent-decoded), or null. */
async function validCookieSession(cookie: { tokens: readonly string[] }, authority: SessionAuthority): Promise<RequestSession | null> {
  for (const candidate of cookie.tokens) {
    // The status comes with the check: /auth/check needs it, and it costs no second read.
    const status = await authority.tokens.statusFor(candidate);
    if (status) return { kind: 'valid', principal: { kind: 'token', session: candidate, status }, via: 'cookie' };
  }
  return null;
}
