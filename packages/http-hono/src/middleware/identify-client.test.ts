import type { Context } from 'hono';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import type { RuntimePort } from '../runtime-port.js';
import { testPolicy } from '../testing/test-policy.js';
import { identifyClient } from './identify-client.js';

const runtime = (peer: string, extra: Partial<RuntimePort> = {}): RuntimePort => ({ getConnInfo: () => ({ remote: { address: peer } }), ...extra });

function appWith(port: RuntimePort, trustedProxies: string[] = [], warned: string[] = []) {
  return new Hono<WebuiEnv>()
    .use(identifyClient(port, testPolicy({ trustedProxies }), (proxy) => warned.push(proxy)))
    .get('/who', (c) => c.json({ ip: c.get('clientIp'), secure: c.get('secureTransport'), runtime: c.get('runtime') === port }));
}

describe('identifyClient (the edge)', () => {
  it('sets the TCP peer as the client, the transport, the runtime, and marks the answer no-store', async () => {
    const port = runtime('192.0.2.7');
    const res = await appWith(port).request('/who', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(await res.json()).toEqual({ ip: '192.0.2.7', secure: false, runtime: true });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('believes X-Forwarded-For and X-Forwarded-Proto from a trusted proxy only (DESIGN D3, D6)', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' };
    expect(await (await appWith(runtime('127.0.0.1'), ['127.0.0.1']).request('/who', { headers })).json()).toMatchObject({ ip: '203.0.113.9', secure: true });
    expect(await (await appWith(runtime('127.0.0.1')).request('/who', { headers })).json()).toMatchObject({ ip: '127.0.0.1', secure: false });
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
    const port = runtime('127.0.0.1', { presetAnswerHeader: (_c: Context, name: string, value: string) => preset.push(`${name}: ${value}`) > 0 });
    const res = await appWith(port).request('/who');
    expect(preset).toEqual(['Cache-Control: no-store']);
    expect(res.headers.get('cache-control')).toBeNull();
  });
});
