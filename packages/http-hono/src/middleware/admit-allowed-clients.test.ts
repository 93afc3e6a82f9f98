import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { WebuiEnv } from '../app-env.js';
import type { RefusalReason } from '../refusal-audit.js';
import { expectErrorBody } from '../testing/test-app.js';
import { testPolicy } from '../testing/test-policy.js';
import type { TestPolicyOptions } from '../testing/test-app.js';
import { admitAllowedClientsAndHosts } from './admit-allowed-clients.js';

function appWith(options: TestPolicyOptions, clientIp = '127.0.0.5') {
  const refusals: Array<[string, RefusalReason]> = [];
  const app = new Hono<WebuiEnv>()
    .use((c, next) => {
      c.set('clientIp', clientIp);
      return next();
    })
    .use(admitAllowedClientsAndHosts(testPolicy(options), (address, reason) => refusals.push([address, reason])))
    .get('/in', (c) => c.json({ ok: true }));
  return { app, refusals, get: (host?: string) => app.request('/in', host === undefined ? {} : { headers: { host } }) };
}

describe('admitAllowedClientsAndHosts (DESIGN D8, D9)', () => {
  it('admits an allowed client asking for a served Host', async () => {
    const { get, refusals } = appWith({ allowedIps: ['127.0.0.0/8'] });
    expect((await get('127.0.0.1:8001')).status).toBe(200);
    expect((await get('localhost')).status).toBe(200);
    expect(refusals).toEqual([]);
  });

  it('refuses a client outside allowed_ips first, whatever its Host, without an audit line', async () => {
    const { get, refusals } = appWith({ allowedIps: ['10.0.0.0/8'] });
    await expectErrorBody(await get('evil.example'), 403, 'ip_not_allowed');
    expect(refusals).toEqual([]);
  });

  it('refuses two Hosts with 400, on any bind', async () => {
    const { get } = appWith({ loopbackOnly: false });
    await expectErrorBody(await get('127.0.0.1:8001, evil.example'), 400, 'duplicate_host');
  });

  it('refuses a foreign Host on loopback and audits it with the client address', async () => {
    const { get, refusals } = appWith({}, '127.0.0.9');
    await expectErrorBody(await get('evil.example'), 403, 'host_not_allowed');
    expect(refusals).toEqual([['127.0.0.9', 'host_not_allowed']]);
  });

  it('serves a listed Host, and every Host off loopback when none is listed', async () => {
    expect((await appWith({ allowedHosts: ['webui.example'] }).get('webui.example:8001')).status).toBe(200);
    expect((await appWith({ loopbackOnly: false }).get('evil.example')).status).toBe(200);
  });
});
