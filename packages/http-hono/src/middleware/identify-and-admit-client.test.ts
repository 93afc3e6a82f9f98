import type { Context } from 'hono';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import type { RuntimePort } from '../runtime-port.js';
import { testPolicy } from '../testing/test-policy.js';
import { identifyAndAdmitClient } from './identify-and-admit-client.js';
import type { RefusalReason } from '../answers/refusal-audit.js';
import { expectErrorBody, type TestPolicyOptions } from '../testing/test-app.js';

const runtime = (peer: string, extra: Partial<RuntimePort> = {}): RuntimePort => ({
  getConnInfo: () => ({ remote: { address: peer } }),
  ...extra,
});

function appWith(port: RuntimePort, trustedProxies: string[] = [], warned: string[] = []) {
  return new Hono<WebuiEnv>()
    .use(
      identifyAndAdmitClient(
        port,
        testPolicy({ trustedProxies, loopbackOnly: false }),
        (proxy) => warned.push(proxy),
        () => undefined,
      ),
    )
    .get('/who', (c) => c.json({ ip: c.get('clientIp'), secure: c.get('secureTransport'), runtime: c.get('runtime') === port }));
}

describe('identifyAndAdmitClient: the edge', () => {
  it('sets the TCP peer as the client, the transport, the runtime, and marks the answer no-store', async () => {
    const port = runtime('192.0.2.7');
    const res = await appWith(port).request('/who', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(await res.json()).toEqual({ ip: '192.0.2.7', secure: false, runtime: true });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('believes X-Forwarded-For and X-Forwarded-Proto from a trusted proxy only (docs/decisions/0003-client-address.md, docs/decisions/0006-session-cookie.md)', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' };
    expect(await (await appWith(runtime('127.0.0.1'), ['127.0.0.1']).request('/who', { headers })).json()).toMatchObject({
      ip: '203.0.113.9',
      secure: true,
    });
    expect(await (await appWith(runtime('127.0.0.1')).request('/who', { headers })).json()).toMatchObject({
      ip: '127.0.0.1',
      secure: false,
    });
  });

  it('takes TLS from the runtime', async () => {
    const res = await appWith(runtime('127.0.0.1', { isTls: () => true })).request('/who');
    expect(await res.json()).toMatchObject({ secure: true });
  });

  it('tells of a trusted proxy that names no client', async () => {
    const warned: string[] = [];
    await appWith(runtime('127.0.0.1'), ['127.0.0.1'], warned).request('/who');
    expect(warned).toEqual(['127.0.0.1']);
  });

  it("presets no-store on the runtime's own answer when the runtime can", async () => {
    const preset: string[] = [];
    const port = runtime('127.0.0.1', {
      presetAnswerHeader: (_c: Context, name: string, value: string) => preset.push(`${name}: ${value}`) > 0,
    });
    const res = await appWith(port).request('/who');
    expect(preset).toEqual(['Cache-Control: no-store']);
    expect(res.headers.get('cache-control')).toBeNull();
  });
});

function admitting(options: TestPolicyOptions, clientIp = '127.0.0.5') {
  const refusals: Array<[string, RefusalReason]> = [];
  const app = new Hono<WebuiEnv>()
    .use(
      identifyAndAdmitClient(
        runtime(clientIp),
        testPolicy(options),
        () => undefined,
        (address, reason) => refusals.push([address, reason]),
      ),
    )
    .get('/in', (c) => c.json({ ok: true }));
  return { app, refusals, get: (host?: string) => app.request('/in', host === undefined ? {} : { headers: { host } }) };
}

describe('identifyAndAdmitClient: allowed IPs and Hosts (docs/decisions/0008-allowed-ips.md, docs/decisions/0009-csrf-and-dns-rebinding.md)', () => {
  it('admits an allowed client asking for a served Host', async () => {
    const { get, refusals } = admitting({ allowedIps: ['127.0.0.0/8'] });
    expect((await get('127.0.0.1:8001')).status).toBe(200);
    expect((await get('localhost')).status).toBe(200);
    expect(refusals).toEqual([]);
  });

  it('refuses a client outside allowed_ips first, whatever its Host, without an audit line; the answer is no-store', async () => {
    const { get, refusals } = admitting({ allowedIps: ['10.0.0.0/8'] });
    expect((await get('evil.example')).headers.get('cache-control')).toBe('no-store');
    await expectErrorBody(await get('evil.example'), 403, 'ip_not_allowed');
    expect(refusals).toEqual([]);
  });

  it('refuses two Hosts with 400, on any bind', async () => {
    const { get } = admitting({ loopbackOnly: false });
    await expectErrorBody(await get('127.0.0.1:8001, evil.example'), 400, 'duplicate_host');
  });

  it('refuses a foreign Host on loopback and audits it with the client address', async () => {
    const { get, refusals } = admitting({}, '127.0.0.9');
    await expectErrorBody(await get('evil.example'), 403, 'host_not_allowed');
    expect(refusals).toEqual([['127.0.0.9', 'host_not_allowed']]);
  });

  it('serves a listed Host, and every Host off loopback when none is listed', async () => {
    expect((await admitting({ allowedHosts: ['webui.example'] }).get('webui.example:8001')).status).toBe(200);
    expect((await admitting({ loopbackOnly: false }).get('evil.example')).status).toBe(200);
  });
});

describe('identifyAndAdmitClient: a target with userinfo (issue 42)', () => {
  // What Node's adapter and Deno hand the app for `GET http://user:pass@host/in HTTP/1.1`; a web Request refuses that URL.
  const absoluteForm = (url: string) => ({ url, method: 'GET', headers: new Headers({ host: '127.0.0.1:8001' }) }) as Request;

  it('answers 400 with the error body (docs/decisions/0001-error-bodies.md), naming neither the user nor the password', async () => {
    const { app } = admitting({});
    for (const url of ['http://probe:secret@127.0.0.1:8001/in', 'https://probe@127.0.0.1/in?x=1', 'http://probe:@127.0.0.1/in']) {
      const body = await expectErrorBody(await app.fetch(absoluteForm(url)), 400, 'bad_request');
      expect(JSON.stringify(body)).not.toMatch(/probe|secret/);
    }
  });

  it('lets an @ in the path or the query through, and refuses a foreign client first', async () => {
    const { app } = admitting({});
    expect((await app.fetch(absoluteForm('http://127.0.0.1:8001/in?mail=a@b.example'))).status).toBe(200);
    expect((await app.fetch(absoluteForm('http://127.0.0.1:8001/in#a@b'))).status).toBe(200);
    const foreign = admitting({ allowedIps: ['10.0.0.0/8'] }).app;
    await expectErrorBody(await foreign.fetch(absoluteForm('http://p:s@127.0.0.1/in')), 403, 'ip_not_allowed');
  });
});
