import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage, type SocketRecord } from '../harness/chromium.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/** The base64 SHA-256 of the certificate's SubjectPublicKeyInfo: what --ignore-certificate-errors-spki-list trusts. */
function spkiHash(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

// The browser trusts the self-signed certificate by its key alone, as a person trusts it by the banner's fingerprint.
describe('the page over HTTPS with a self-signed certificate, in a real browser', () => {
  let server: ServerProcess;
  let origin: string;
  let certPem: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sockets: SocketRecord[] = [];
  let pageErrors: string[] = [];
  let consoleMessages: string[] = [];

  beforeAll(async () => {
    server = await startServer({ config: '[webui.tls]\nself_signed = true\n' });
    origin = `https://127.0.0.1:${server.port}`;
    certPem = readFileSync(join(server.dataDir, 'tls', 'cert.pem'), 'utf8');
    browser = await launchChromium([`--ignore-certificate-errors-spki-list=${spkiHash(certPem)}`]);
    context = await browser.newContext();
    page = await context.newPage();
    ({ sockets, consoleMessages, pageErrors } = watchPage(page));
  });

  afterAll(async () => {
    await browser?.close();
    await cleanupServers();
  });

  it('prints the fingerprint the browser is shown, in openssl -fingerprint -sha256 form', () => {
    const fingerprint = new X509Certificate(certPem).fingerprint256;
    expect(fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(server.stderr()).toContain(fingerprint);
    expect(server.stderr()).toContain(`${origin}/`);
  });

  it('loads the page over HTTPS, and a browser that does not trust the key refuses it', async () => {
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/`);
    const security = await response?.securityDetails();
    expect(security?.protocol).toMatch(/^TLS 1\.[23]$/);
    await page.locator('#view-login').waitFor({ state: 'visible' });

    // The flag is what makes it load: without it Chromium stops at the certificate.
    const untrusting = await launchChromium();
    try {
      const refused = await untrusting.newPage().then((other) =>
        other.goto(`${origin}/`).then(
          () => 'loaded',
          (error: Error) => error.message,
        ),
      );
      expect(refused).toMatch(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await untrusting.close();
    }
  });

  it('logs in with the token: the session cookie is Secure and HttpOnly', async () => {
    const token = readWebuiFile(server.dataDir).access_token;
    await page.getByLabel('Access token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#view-login').waitFor({ state: 'hidden' });
    await expect(page.locator('#logout').isVisible()).resolves.toBe(true);
    const session = (await context.cookies(origin)).find((cookie) => cookie.name === 'bot_session');
    expect(session?.value).toBe(token);
    expect(session?.secure).toBe(true);
    expect(session?.httpOnly).toBe(true);
  });

  it('streams the server log over wss:// opened with a one-time ticket', async () => {
    await page.locator('#log-list li').first().waitFor();
    expect(await page.locator('#log-state').textContent()).toBe('Live');
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    const live = sockets.at(-1) as SocketRecord;
    expect(live.url).toMatch(new RegExp(`^wss://127\\.0\\.0\\.1:${server.port}/api/webui/ws\\?token=[A-Za-z0-9_-]{43}$`));
    expect(live.closed).toBe(false);
    const events = live.received.map((frame) => JSON.parse(frame) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
    expect(events.some((event) => event['event'] === 'snapshot')).toBe(true);
  });

  it('throws no error and breaks no rule of the Content-Security-Policy', () => {
    expect(pageErrors).toEqual([]);
    expect(consoleMessages.filter((line) => /Content Security Policy|Refused to|Mixed Content/i.test(line))).toEqual([]);
  });
});
