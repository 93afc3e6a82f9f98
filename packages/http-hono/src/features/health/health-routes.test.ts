import { describe, expect, it } from 'vitest';
import { createTestApp, json } from '../../testing/test-app.js';

describe('GET /health', () => {
  it('answers 200 {status: healthy, service} without a session', async () => {
    const t = await createTestApp({ policy: { serviceName: 'maibot-webui' } });
    const res = await t.request('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json(res)).toEqual({ status: 'healthy', service: 'maibot-webui' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('ignores a wrong cookie: a health probe never counts as a guess', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 6; i++) expect((await t.request('/health', { cookie: `wrong-${i}` })).status).toBe(200);
    expect((await t.verify(t.token)).status).toBe(200);
  });
});
