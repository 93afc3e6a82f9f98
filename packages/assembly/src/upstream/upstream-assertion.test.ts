import { FakeClock } from '@webui/core/testing';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAssertionSigner } from './upstream-assertion.js';

const SECRET = new Uint8Array(32).fill(7);
const OTHER_SECRET = new Uint8Array(32).fill(8);
const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const VERIFY = { issuer: 'webui', audience: 'upstream', algorithms: ['HS256'] };

describe('createAssertionSigner', () => {
  it('signs an HS256 JWT with the caller and the claims the upstream checks', async () => {
    const clock = new FakeClock(START);
    const token = await createAssertionSigner(SECRET, clock)({ principal: 'key:deploy', scope: 'read' });
    const { payload } = await jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START) });
    expect(payload).toEqual({ sub: 'key:deploy', scope: 'read', iss: 'webui', aud: 'upstream', iat: START / 1000, exp: START / 1000 + 60 });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('is refused with another secret', async () => {
    const token = await createAssertionSigner(SECRET, new FakeClock(START))({ principal: 'session', scope: 'admin' });
    await expect(jwtVerify(token, OTHER_SECRET, { ...VERIFY, currentDate: new Date(START) })).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });

  it('is good for 60 seconds and expired after', async () => {
    const token = await createAssertionSigner(SECRET, new FakeClock(START))({ principal: 'anonymous', scope: 'none' });
    await expect(jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START + 59_000) })).resolves.toBeDefined();
    await expect(jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START + 60_000) })).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  it('gives each caller its own assertion, and a new one when the second changes', async () => {
    const clock = new FakeClock(START);
    const sign = createAssertionSigner(SECRET, clock);
    const session = await sign({ principal: 'session', scope: 'admin' });
    const key = await sign({ principal: 'key:ci', scope: 'admin' });
    expect(key).not.toBe(session);
    expect(await sign({ principal: 'session', scope: 'admin' })).toBe(session);
    clock.advance(1000);
    const later = await sign({ principal: 'session', scope: 'admin' });
    expect(later).not.toBe(session);
    expect((await jwtVerify(later, SECRET, { ...VERIFY, currentDate: new Date(START + 1000) })).payload.iat).toBe(START / 1000 + 1);
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => createAssertionSigner(new Uint8Array(16))).toThrow(RangeError);
  });
});
