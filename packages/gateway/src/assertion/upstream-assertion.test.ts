import { FakeClock } from '@webui/core/testing';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAssertionSigner } from './upstream-assertion.js';

const SECRET = new Uint8Array(32).fill(7);
const OTHER_SECRET = new Uint8Array(32).fill(8);
const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const VERIFY = { issuer: 'webui', audience: 'upstream', algorithms: ['HS256'] };
const GET_CONFIG = { method: 'GET', path: '/api/webui/config/bot' };

/** Ids in order, as a fixed seed gives them: a test reads which one each assertion got. */
function sequence(): () => string {
  let next = 0;
  return () => `id-${++next}`;
}

describe('createAssertionSigner', () => {
  it('signs an HS256 JWT with the caller, the request it is for, a unique id and the claims the upstream checks', async () => {
    const clock = new FakeClock(START);
    const token = createAssertionSigner(SECRET, clock, sequence())({ principal: 'key:deploy', scope: 'read' }, GET_CONFIG);
    const { payload } = await jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START) });
    expect(payload).toEqual({
      sub: 'key:deploy',
      scope: 'read',
      method: 'GET',
      path: '/api/webui/config/bot',
      jti: 'id-1',
      iss: 'webui',
      aud: 'upstream',
      iat: START / 1000,
      exp: START / 1000 + 60,
    });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  it('is refused with another secret', async () => {
    const token = createAssertionSigner(SECRET, new FakeClock(START))({ principal: 'session', scope: 'admin' }, GET_CONFIG);
    await expect(jwtVerify(token, OTHER_SECRET, { ...VERIFY, currentDate: new Date(START) })).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });

  it('is good for 60 seconds and expired after', async () => {
    const token = createAssertionSigner(SECRET, new FakeClock(START))({ principal: 'anonymous', scope: 'none' }, GET_CONFIG);
    await expect(jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START + 59_000) })).resolves.toBeDefined();
    await expect(jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START + 60_000) })).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  it('never gives the same assertion twice: the same caller and request within one second get two ids', async () => {
    const sign = createAssertionSigner(SECRET, new FakeClock(START), sequence());
    const first = sign({ principal: 'session', scope: 'admin' }, GET_CONFIG);
    const second = sign({ principal: 'session', scope: 'admin' }, GET_CONFIG);
    expect(second).not.toBe(first);
    const ids = await Promise.all(
      [first, second].map(async (token) => (await jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START) })).payload.jti),
    );
    expect(ids).toEqual(['id-1', 'id-2']);
  });

  it('with the default ids, a thousand assertions have a thousand different ids', async () => {
    const sign = createAssertionSigner(SECRET, new FakeClock(START));
    const ids = new Set<unknown>();
    for (let i = 0; i < 1000; i++) {
      const token = sign({ principal: 'session', scope: 'admin' }, GET_CONFIG);
      ids.add((await jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START) })).payload.jti);
    }
    expect(ids.size).toBe(1000);
  });

  it('states any path as sent, escaped in the JSON, never able to add a claim', async () => {
    const path = '/api/chat/"x","scope":"admin"/%2e?';
    const sign = createAssertionSigner(SECRET, new FakeClock(START), sequence());
    const token = sign({ principal: 'key:r', scope: 'read' }, { method: 'PATCH', path });
    const { payload } = await jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START) });
    expect(payload).toMatchObject({ scope: 'read', method: 'PATCH', path });
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => createAssertionSigner(new Uint8Array(16))).toThrow(RangeError);
  });

  it('signs with a copy of the secret: changing the caller’s buffer afterwards changes nothing', async () => {
    const secret = new Uint8Array(SECRET);
    const sign = createAssertionSigner(secret, new FakeClock(START));
    secret.fill(0);
    const token = sign({ principal: 'session', scope: 'admin' }, GET_CONFIG);
    await expect(jwtVerify(token, SECRET, { ...VERIFY, currentDate: new Date(START) })).resolves.toBeDefined();
  });
});
