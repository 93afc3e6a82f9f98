import { describe, expect, it } from 'vitest';
import type { CallerIdentity, UpstreamOptions } from '../upstream-options.js';
import { fetchUpstreamTicket, relayRequestHeaders, upstreamChannelUrl } from './upstream-ticket.js';

function upstreamAnswering(answer: (request: Request) => Promise<Response>): UpstreamOptions & { requests: Request[] } {
  const requests: Request[] = [];
  return {
    requests,
    origin: 'https://bot.example:8443',
    paths: ['/api/webui'],
    publicPaths: [],
    headers: { Cookie: 'maibot_session=s', 'X-Extra': 'y' },
    timeoutMs: 30_000,
    transport: (request) => {
      requests.push(request);
      return answer(request);
    },
  };
}

const signal = new AbortController().signal;
const READER: CallerIdentity = { principal: 'key:reader', scope: 'read' };

describe('fetchUpstreamTicket', () => {
  it('GETs /api/webui/ws-token at the origin with the configured headers and reads {success:true, token}', async () => {
    const upstream = upstreamAnswering(async () => Response.json({ success: true, token: 'abc', expires_in: 60 }));
    expect(await fetchUpstreamTicket(upstream, READER, signal)).toEqual({ ok: true, ticket: 'abc' });
    const [request] = upstream.requests;
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('https://bot.example:8443/api/webui/ws-token');
    expect(request?.headers.get('cookie')).toBe('maibot_session=s');
    expect(request?.headers.get('x-extra')).toBe('y');
  });

  it('tells the upstream which client the ticket is for, with an assertion made for GET /api/webui/ws-token', async () => {
    const upstream = upstreamAnswering(async () => Response.json({ success: true, token: 'abc' }));
    upstream.assertion = (identity, request) => `signed ${identity.principal} ${identity.scope} ${request.method} ${request.path}`;
    await fetchUpstreamTicket(upstream, READER, signal);
    const headers = upstream.requests[0]?.headers;
    expect(headers?.get('x-webui-principal')).toBe('key:reader');
    expect(headers?.get('x-webui-scope')).toBe('read');
    expect(headers?.get('x-webui-assertion')).toBe('signed key:reader read GET /api/webui/ws-token');
    expect(headers?.get('cookie')).toBe('maibot_session=s');
  });

  it.each([
    ['success:false (the original without its cookie)', () => Response.json({ success: false, token: null }), 'upstream_refused'],
    ['401', () => new Response('no', { status: 401 }), 'upstream_refused'],
    ['403', () => new Response('no', { status: 403 }), 'upstream_refused'],
    ['500', () => Response.json({ success: true, token: 'abc' }, { status: 500 }), 'upstream_unavailable'],
    ['a body that is not JSON', () => new Response('<html>'), 'upstream_unavailable'],
    ['JSON of another shape', () => Response.json({ token: 'abc' }), 'upstream_unavailable'],
    ['success:true without a token', () => Response.json({ success: true, token: null }), 'upstream_unavailable'],
    ['success:true with an empty token', () => Response.json({ success: true, token: '' }), 'upstream_unavailable'],
  ])('%s -> %s', async (_name, answer, failure) => {
    const upstream = upstreamAnswering(async () => answer());
    expect(await fetchUpstreamTicket(upstream, READER, signal)).toEqual({ ok: false, failure });
  });

  it('a transport that fails (refused, reset, aborted) -> upstream_unavailable', async () => {
    const upstream = upstreamAnswering(async () => {
      throw new TypeError('fetch failed');
    });
    expect(await fetchUpstreamTicket(upstream, READER, signal)).toEqual({ ok: false, failure: 'upstream_unavailable' });
  });

  it("the request carries the abort signal, so the relay's connect bound can give it up", async () => {
    const upstream = upstreamAnswering(async () => Response.json({ success: true, token: 'abc' }));
    const controller = new AbortController();
    await fetchUpstreamTicket(upstream, READER, controller.signal);
    controller.abort();
    expect(upstream.requests[0]?.signal.aborted).toBe(true);
  });
});

describe('relayRequestHeaders', () => {
  it('the configured headers, then the identity and an assertion for GET <path>, which win over a configured x-webui-* of any case', () => {
    const upstream = upstreamAnswering(async () => new Response());
    const configured = { ...upstream.headers, 'X-WebUI-Scope': 'admin' };
    const assertion = (identity: CallerIdentity, request: { method: string; path: string }) =>
      `${identity.principal}@${request.method} ${request.path}`;
    expect(relayRequestHeaders({ ...upstream, headers: configured, assertion }, READER, '/api/webui/ws')).toEqual({
      cookie: 'maibot_session=s',
      'x-extra': 'y',
      'x-webui-principal': 'key:reader',
      'x-webui-scope': 'read',
      'x-webui-assertion': 'key:reader@GET /api/webui/ws',
    });
    const unsigned = relayRequestHeaders(upstream, { principal: 'session', scope: 'admin' }, '/api/webui/ws');
    expect(unsigned).not.toHaveProperty('x-webui-assertion');
  });
});

describe('upstreamChannelUrl', () => {
  it("ws: for http, wss: for https, the origin's host, the ticket URL-encoded", () => {
    expect(upstreamChannelUrl('http://127.0.0.1:8002', 'a b/+=&')).toBe('ws://127.0.0.1:8002/api/webui/ws?token=a%20b%2F%2B%3D%26');
    expect(upstreamChannelUrl('https://bot.example', 't')).toBe('wss://bot.example/api/webui/ws?token=t');
    expect(upstreamChannelUrl('http://[::1]:8002/', 't')).toBe('ws://[::1]:8002/api/webui/ws?token=t');
  });
});
