import { describe, expect, it } from 'vitest';
import { connectionListed, upstreamRequestHeaders, withoutSessionCookie } from './upstream-request-headers.js';

const ORIGIN = { clientIp: '203.0.113.7', secure: true, host: 'bot.example' };

describe('upstreamRequestHeaders', () => {
  it("drops hop-by-hop headers, those the Connection header names, Expect, the caller's credential, Host and claimed identity", () => {
    const caller = new Headers({
      connection: 'close, X-Per-Hop',
      'x-per-hop': '1',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      trailer: 'x',
      upgrade: 'websocket',
      'proxy-authorization': 'Basic x',
      'proxy-connection': 'keep-alive',
      'transfer-encoding': 'chunked',
      authorization: 'Bearer key',
      host: 'bot.example',
      'x-webui-principal': 'session',
      'X-WebUI-Whatever': 'x',
      forwarded: 'for=1.2.3.4',
      'x-real-ip': '1.2.3.4',
      'x-forwarded-for': '1.2.3.4',
      expect: '100-continue',
      accept: 'application/json',
    });
    const headers = upstreamRequestHeaders(caller, ORIGIN, {}, { 'x-webui-principal': 'key:ci', 'x-webui-scope': 'read' });
    expect(Object.fromEntries(headers)).toEqual({
      accept: 'application/json',
      'accept-encoding': 'identity',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'bot.example',
      'x-webui-principal': 'key:ci',
      'x-webui-scope': 'read',
    });
  });

  it('drops every name holding _, the whole X-Forwarded-* family and the claims of address, URL and method (issue 42)', () => {
    const caller = new Headers({
      X_Real_IP: '6.6.6.6',
      X_Forwarded_For: '6.6.6.6',
      'X-WebUI_Scope': 'admin',
      x_webui_principal: 'session',
      x_anything: 'underscored',
      'x-forwarded-port': '1',
      'x-forwarded-prefix': '/admin',
      'x-forwarded-server': 'evil.example',
      'x-forwarded-ssl': 'on',
      'x-original-url': '/admin',
      'x-rewrite-url': '/admin',
      'x-http-method-override': 'DELETE',
      'x-http-method': 'DELETE',
      'x-method-override': 'DELETE',
      'x-client-ip': '6.6.6.6',
      'true-client-ip': '6.6.6.6',
      'x-forwardedx': 'kept',
      'x-kept': 'yes',
    });
    expect(Object.fromEntries(upstreamRequestHeaders(caller, ORIGIN, {}, {}))).toEqual({
      'accept-encoding': 'identity',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'bot.example',
      'x-forwardedx': 'kept',
      'x-kept': 'yes',
    });
  });

  it('configured headers win over the caller, identity headers over both; no Host, no X-Forwarded-Host', () => {
    const caller = new Headers({ cookie: 'bot_session=ours; theme=dark', 'x-api': 'caller' });
    const headers = upstreamRequestHeaders(
      caller,
      { clientIp: '::1', secure: false, host: undefined },
      { Cookie: 'maibot_session=s', 'X-Api': 'configured', 'x-webui-scope': 'admin' },
      { 'x-webui-principal': 'anonymous', 'x-webui-scope': 'none' },
    );
    expect(Object.fromEntries(headers)).toEqual({
      'accept-encoding': 'identity',
      cookie: 'maibot_session=s',
      'x-api': 'configured',
      'x-forwarded-for': '::1',
      'x-forwarded-proto': 'http',
      'x-webui-principal': 'anonymous',
      'x-webui-scope': 'none',
    });
  });
});

describe('withoutSessionCookie', () => {
  it('removes every bot_session pair, keeps the others in order', () => {
    expect(withoutSessionCookie('a=1; bot_session=x; b=2;bot_session=y')).toBe('a=1; b=2');
    expect(withoutSessionCookie('bot_session=x')).toBe('');
    expect(withoutSessionCookie(' bot_session_other=1 ; Bot_Session=2')).toBe('bot_session_other=1; Bot_Session=2');
  });

  it('takes a single pair, or none, as it takes a list', () => {
    expect(withoutSessionCookie(' theme=dark ')).toBe('theme=dark');
    expect(withoutSessionCookie(' bot_session=x ')).toBe('');
    expect(withoutSessionCookie('bot_session')).toBe('');
    expect(withoutSessionCookie('   ')).toBe('');
    expect(withoutSessionCookie('flag')).toBe('flag');
  });
});

describe('connectionListed', () => {
  it('lower-cases each listed name and ignores what is no header name, one token or several', () => {
    expect(connectionListed(null)).toEqual([]);
    expect(connectionListed(' Keep-Alive ')).toEqual(['keep-alive']);
    expect(connectionListed('x y')).toEqual([]);
    expect(connectionListed('')).toEqual([]);
    expect(connectionListed('keep-alive, X-Drop ,, bad value')).toEqual(['keep-alive', 'x-drop']);
  });
});
