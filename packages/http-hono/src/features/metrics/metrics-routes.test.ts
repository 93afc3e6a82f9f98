import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody } from '../../testing/test-app.js';

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';
const scrape = async () => ({ contentType: TEXT, body: '# HELP webui_up up\n# TYPE webui_up gauge\nwebui_up 1\n' });

describe('GET /metrics', () => {
  it("answers the scrape's text to the token's session and to an admin key", async () => {
    const t = await createTestApp({ metrics: scrape });
    for (const credential of [{ cookie: await t.login() }, { bearer: await t.createKey('prometheus', 'admin') }]) {
      const res = await t.request('/metrics', credential);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(TEXT);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toContain('webui_up 1');
    }
  });

  it('refuses a read key (403 insufficient_scope) and no credential (401), the whole pipeline in front', async () => {
    const t = await createTestApp({ metrics: scrape });
    await expectErrorBody(await t.request('/metrics', { bearer: await t.createKey('dashboard', 'read') }), 403, 'insufficient_scope');
    await expectErrorBody(await t.request('/metrics'), 401, 'not_authenticated');
  });

  it('is no route without a scrape', async () => {
    const t = await createTestApp();
    await expectErrorBody(await t.request('/metrics', { cookie: await t.login() }), 404, 'not_found');
  });
});
