import type { Context } from 'hono';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import type { RuntimePort } from '../runtime-port.js';
import { testPolicy } from '../testing/test-policy.js';
import { identifyAndAdmitClient } from './identify-and-admit-client.js';
import type { RefusalReason } from '../refusal-audit.js';
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

  it('believes X-Forwarded-For and X-Forwarded-Proto from a trusted proxy only (DESIGN D3, D6)', async () => {
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

describe('identifyAndAdmitClient: allowed IPs and Hosts (DESIGN D8, D9)', () => {
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
