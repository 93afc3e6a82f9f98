import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/chromium.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

describe('API docs', () => {
  let server: ServerProcess;
  let client: HttpClient;

  beforeAll(async () => {
    server = await startServer();
    client = new HttpClient(server.baseUrl);
  });

  it('GET /api/webui/openapi.json is the OpenAPI 3.1 document, without a session', async () => {
    const response = await client.get('/openapi.json', { cookie: null });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ openapi: '3.1.0' });
    expect(Object.keys(response.json?.['paths'] as object)).toEqual(
      expect.arrayContaining(['/api/webui/auth/verify', '/api/webui/ws-token', '/api/webui/ws']),
    );
  });

  it('GET /api/webui/docs is Swagger UI served from this server, scripts same-origin only', async () => {
    const page = await client.get('/docs', { cookie: null });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('/api/webui/docs/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    const bundle = await client.get('/docs/swagger-ui-bundle.js', { cookie: null });
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    const init = await client.get('/docs/init.js', { cookie: null });
    expect(init.text).toContain('/api/webui/openapi.json');
  });

  it("/docs shows each operation's security and the scope it needs (issue 45)", { timeout: 90_000 }, async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      // A deep link opens one operation: creating a key, which only the access token may do; its extensions come last.
      await page.goto(`${server.baseUrl}/api/webui/docs#/keys/postKeys`);
      const operation = page.locator('#operations-keys-postKeys');
      await operation.getByText('Extensions').waitFor({ timeout: 30_000 });
      const text = await operation.innerText();
      expect(text).toMatch(/x-webui-scope\s+"access_token"/);
      expect(text).toContain('Scope access_token: the access token itself, as the bot_session cookie or Authorization: Bearer');
      // A guarded operation has the lock of its security; a public one neither the lock nor a scope.
      expect(await operation.locator('.authorization__btn').count()).toBe(1);
      // A new page: Swagger UI reads the deep link when it loads, not on a change of the hash.
      const other = await browser.newPage();
      await other.goto(`${server.baseUrl}/api/webui/docs#/health/getHealth`);
      const health = other.locator('#operations-health-getHealth');
      await health.getByText('Public: no credential.').waitFor({ timeout: 30_000 });
      expect(await health.innerText()).not.toContain('x-webui-scope');
      expect(await health.locator('.authorization__btn').count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
