import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

/**
 * Issue 18 part 4: a state change carrying the session cookie but no Origin (old browsers' form posts)
 * is refused when the browser says it came from another site; scripts, which send neither header, keep working.
 */
describe('state changes without Origin: Sec-Fetch-Site decides (docs/decisions/0009-csrf-and-dns-rebinding.md, defence in depth)', () => {
  let server: ServerProcess;
  let token: string;
  /** Logged in; its jar sends the session cookie with every request. */
  let browser: HttpClient;

  const setupCompleted = () => readWebuiFile(server.dataDir).first_setup_completed;
  const reset = (headers: Record<string, string>) => browser.post('/setup/reset', { headers });

  function expectReset(response: HttpResponse): void {
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ success: true, is_first_setup: true });
    expect(setupCompleted()).toBe(false);
  }

  function expectRefused(response: HttpResponse): void {
    expectErrorBody(response, 403, 'cross_site_request');
    // Nothing changed: the first setup stays completed in the data file.
    expect(setupCompleted()).toBe(true);
  }

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    browser = new HttpClient(server.baseUrl);
    expect((await browser.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  });

  beforeEach(async () => {
    const complete = await browser.post('/setup/complete');
    expect(complete.status, complete.text).toBe(200);
    expect(setupCompleted()).toBe(true);
  });

  it(
    'the case from the issue: POST /setup/reset with the cookie, no Origin, Sec-Fetch-Site: cross-site -> 403 cross_site_request, data ' +
      'file unchanged',
    async () => {
      expectRefused(await reset({ 'sec-fetch-site': 'cross-site' }));
      // Neither a form post with a Referer from elsewhere, nor another state change, gets through.
      expectRefused(await reset({ 'sec-fetch-site': 'cross-site', referer: `${server.baseUrl}/` }));
      expectErrorBody(await browser.post('/auth/regenerate', { headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'cross_site_request');
      expect(readWebuiFile(server.dataDir).access_token).toBe(token);
      // The session is still good: the refusal cleared nothing.
      expect((await browser.get('/setup/status')).json).toMatchObject({ is_first_setup: false });
    },
  );

  it('Sec-Fetch-Site: same-site with a Referer from a foreign origin, or without a Referer, -> 403', async () => {
    expectRefused(await reset({ 'sec-fetch-site': 'same-site', referer: 'http://evil.example/attack.html' }));
    expectRefused(await reset({ 'sec-fetch-site': 'same-site', referer: `http://127.0.0.1:${server.port + 1}/` }));
    expectRefused(await reset({ 'sec-fetch-site': 'same-site' }));
    expectRefused(await reset({ 'sec-fetch-site': 'same-site', referer: 'not a url' }));
  });

  it("Sec-Fetch-Site: same-site with the server's own origin as Referer -> 200, reset done", async () => {
    expectReset(await reset({ 'sec-fetch-site': 'same-site', referer: `${server.baseUrl}/settings?tab=1` }));
  });

  it('a script sending neither Origin nor Sec-Fetch-Site -> 200, reset done', async () => {
    expectReset(await reset({}));
  });

  it('Sec-Fetch-Site: same-origin -> 200, reset done', async () => {
    expectReset(await reset({ 'sec-fetch-site': 'same-origin' }));
  });

  it('reads are not state changes: a cross-site GET with the cookie is answered', async () => {
    const status = await browser.get('/setup/status', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(status.status, status.text).toBe(200);
    expect(status.json).toMatchObject({ is_first_setup: false });
  });
});
