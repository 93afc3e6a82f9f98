import { describe, expect, it } from 'vitest';
import { CookieJar } from './cookie-jar.js';

describe('CookieJar', () => {
  it('keeps a cookie as sent and gives it back as the Cookie header', () => {
    const jar = new CookieJar();
    const headers = new Headers();
    headers.append('set-cookie', 'bot_session=Ab%3Bc%2Cd; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax');
    headers.append('set-cookie', 'other=1; Path=/');
    jar.store(headers);
    expect(jar.get('bot_session')).toBe('Ab%3Bc%2Cd');
    expect(jar.header()).toBe('bot_session=Ab%3Bc%2Cd; other=1');
  });

  it('removes a cookie cleared with Max-Age=0, as logout, update and regenerate do', () => {
    const jar = new CookieJar();
    jar.storeLine('bot_session=abc; Max-Age=604800; Path=/');
    jar.storeLine('bot_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    expect(jar.get('bot_session')).toBeUndefined();
    expect(jar.header()).toBeUndefined();
  });

  it('honours Expires, and Max-Age over Expires', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const jar = new CookieJar(() => now);
    jar.storeLine('a=1; Expires=Thu, 01 Jan 2020 00:00:00 GMT');
    jar.storeLine('b=2; Expires=Thu, 01 Jan 2020 00:00:00 GMT; Max-Age=60');
    expect(jar.get('a')).toBeUndefined();
    expect(jar.get('b')).toBe('2');
    now += 61_000;
    expect(jar.get('b')).toBeUndefined();
  });

  it('splits a joined Set-Cookie header of runtimes without getSetCookie', () => {
    const jar = new CookieJar();
    const joined = {
      getSetCookie: undefined,
      get: () => 'a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/, b=2; Path=/',
    } as unknown as Headers;
    jar.store(joined);
    expect(jar.header()).toBe('a=1; b=2');
  });
});
