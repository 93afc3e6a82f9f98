import type { Admission } from '../domain/bans/ban-policy.js';
import type { Credentials, Principal } from '../domain/credentials.js';
import type { CredentialHow } from '../domain/security-event.js';
import type { TokenService } from '../domain/tokens/token-service.js';
import { andThen, type Awaitable } from '../ports/awaitable.js';
import type { AttemptClient } from './actor.js';
import type { AttemptRefusal, Attempts, PresentedValue } from './attempts.js';
import type { OperationEvent } from './events/operation-event.js';
import { ambiguityOf, type AmbiguousCredentials, type PresentedCredentials } from './presented-credentials.js';

/** How a request presented its credential: the bot_session cookie, or `Authorization: Bearer`. */
export type CredentialVia = 'cookie' | 'bearer';

/** Who a request acts as, or why it acts as nobody. */
export type AuthenticationOutcome =
  | { kind: 'none' }
  | { kind: 'valid'; principal: Principal; via: CredentialVia }
  | { kind: 'invalid'; via: CredentialVia }
  /** More than one credential: refused with none of them compared, counted as one guess. */
  | { kind: 'ambiguous'; code: AmbiguousCredentials }
  | ({ kind: 'refused' } & AttemptRefusal);

/** What authenticating needs: the attempt accounting, the access token for cookies, the token or a key for bearers. */
export interface AuthenticationParts {
  attempts: Attempts;
  tokens: Pick<TokenService, 'statusFor'>;
  credentials: Pick<Credentials, 'authenticate'>;
}

/**
 * Checks the credential a request presents. A wrong value counts as a failed verification (docs/decisions/0004-guessing-through-the-cookie.md),
 * a banned client's credential is not even compared, nor is any while the store cannot answer the admission
 * (StoreUnavailableError, before any compare), so no endpoint is an oracle outside the ban or during an outage. The
 * cookie carries the access token only (a browser session); a bearer may be the token or an API key.
 * A request presenting more than one credential has none compared and counts as one guess.
 * A valid cookie of a client the store answers for at once (the JSON file) is answered at once (Awaitable): the login check
 * of every request ends in the turn it started. It may throw at once: the verbs that call it turn that into a rejected
 * promise (AccessOperations).
 */
export function authenticate(
  parts: AuthenticationParts,
  presented: PresentedCredentials,
  client: AttemptClient,
  events: OperationEvent[],
): Awaitable<AuthenticationOutcome> {
  const ambiguity = ambiguityOf(presented);
  if (ambiguity) return refuseAmbiguous(parts, ambiguity, client, events);
  if (presented.bearer !== null) return checkBearer(parts, presented.bearer, client, events);
  const [cookie] = presented.cookies;
  if (cookie === undefined) return NONE;
  // A store that cannot answer admission throws here, before any compare: right and wrong cookies get the same 503.
  return andThen(parts.attempts.admit(client), ({ admission, refusal }) => {
    if (refusal) return { kind: 'refused', ...refusal };
    return andThen(validCookieSession(cookie, parts), (valid) => {
      if (valid === null) return refuseCookie(parts, cookie, client, admission, events);
      // Only an attempt that held a place in the global budget has anything to give back or remember.
      if (admission.hold === null) return valid;
      return parts.attempts.succeeded(client, admission).then(() => valid);
    });
  });
}

const NONE: AuthenticationOutcome = { kind: 'none' };

async function refuseAmbiguous(
  parts: AuthenticationParts,
  ambiguity: { how: CredentialHow; code: AmbiguousCredentials },
  client: AttemptClient,
  events: OperationEvent[],
): Promise<AuthenticationOutcome> {
  const refusal = await parts.attempts.ambiguous(client, ambiguity.how, events);
  return refusal ? { kind: 'refused', ...refusal } : { kind: 'ambiguous', code: ambiguity.code };
}

/** A wrong cookie: a guess like a wrong token (docs/decisions/0004-guessing-through-the-cookie.md). */
async function refuseCookie(
  parts: AuthenticationParts,
  cookie: PresentedValue,
  client: AttemptClient,
  admission: Admission,
  events: OperationEvent[],
): Promise<AuthenticationOutcome> {
  const outcome = await parts.attempts.failed(client, admission, 'cookie', events, cookie);
  if (outcome.banned) return { kind: 'refused', retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' };
  return { kind: 'invalid', via: 'cookie' };
}

async function checkBearer(
  parts: AuthenticationParts,
  bearer: string,
  client: AttemptClient,
  events: OperationEvent[],
): Promise<AuthenticationOutcome> {
  // An empty bearer guesses nothing: refused, not counted.
  if (bearer === '') return { kind: 'invalid', via: 'bearer' };
  // The bearer goes to admission: a live API key is not held to the global budget.
  const { admission, refusal } = await parts.attempts.admit(client, bearer);
  if (refusal) return { kind: 'refused', ...refusal };
  const authentication = await parts.credentials.authenticate(bearer);
  if (authentication.ok) {
    const { principal } = authentication;
    if (admission.hold !== null) await parts.attempts.succeeded(client, admission, principal.kind);
    // A key's first request ever: the operator learns the key is in use, and from where.
    if (principal.kind === 'key' && principal.firstUse)
      events.push({ event: 'key_first_used', address: client.ip, via: 'api', key: principal.name });
    return { kind: 'valid', principal, via: 'bearer' };
  }
  // A wrong bearer is a guess like a wrong cookie, each distinct value once per window (docs/decisions/0004-guessing-through-the-cookie.md).
  const outcome = await parts.attempts.failed(
    client,
    admission,
    'bearer',
    events,
    { raw: bearer, tokens: [bearer] },
    authentication.expiredKey,
  );
  if (outcome.banned) return { kind: 'refused', retryAfterSeconds: outcome.retryAfterSeconds, scope: 'address' };
  return { kind: 'invalid', via: 'bearer' };
}

/** The session of the cookie when it is the access token (as sent, or percent-decoded), or null; from the `from`th candidate on. */
function validCookieSession(cookie: PresentedValue, parts: AuthenticationParts, from = 0): Awaitable<AuthenticationOutcome | null> {
  const candidate = cookie.tokens[from];
  if (candidate === undefined) return null;
  // The status comes with the check: /auth/check needs it, and it costs no second read.
  return andThen(parts.tokens.statusFor(candidate), (status) =>
    status
      ? { kind: 'valid', principal: { kind: 'token', session: candidate, status }, via: 'cookie' }
      : validCookieSession(cookie, parts, from + 1),
  );
}
