import type { Clock } from '@webui/core';
import type { CallerIdentity } from '@webui/http-hono';
import { SignJWT } from 'jose';
import { systemClock } from '../system-ports.js';

/** How long an assertion is good for: long enough for one request to reach the upstream, too short to be worth stealing. */
export const ASSERTION_LIFETIME_SECONDS = 60;

/** HS256 wants a key as long as its hash: 256 bits. */
export const ASSERTION_SECRET_BYTES = 32;

/**
 * Signs X-WebUI-Assertion: an HS256 JWT `{ sub: principal, scope, iss: "webui", aud: "upstream", iat, exp: iat + 60 }`, so an
 * upstream holding the same secret can check who the gateway says is calling.
 */
export function createAssertionSigner(secret: Uint8Array, clock: Clock = systemClock): (identity: CallerIdentity) => Promise<string> {
  if (secret.length < ASSERTION_SECRET_BYTES) throw new RangeError(`an assertion secret has at least ${ASSERTION_SECRET_BYTES} bytes`);
  // Imported once rather than by every signature; a copy, so the caller's buffer may change.
  const key = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  // One second's assertions: within a second the same claims sign to the same token, so each caller's is made once.
  let second = -1;
  let signed = new Map<string, Promise<string>>();
  return (identity) => {
    const iat = Math.floor(clock.now() / 1000);
    if (iat !== second) {
      second = iat;
      signed = new Map();
    }
    const caller = `${identity.scope} ${identity.principal}`;
    const cached = signed.get(caller);
    if (cached !== undefined) return cached;
    const claims = new SignJWT({ scope: identity.scope })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(identity.principal)
      .setIssuer('webui')
      .setAudience('upstream')
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_LIFETIME_SECONDS);
    const token = key.then((hmacKey) => claims.sign(hmacKey));
    signed.set(caller, token);
    // A failure is this caller's to see, not the rest of the second's.
    token.catch(() => signed.get(caller) === token && signed.delete(caller));
    return token;
  };
}
