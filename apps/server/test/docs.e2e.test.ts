import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './harness/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from './harness/server-process.js';

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
});
