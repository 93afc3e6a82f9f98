import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import { launchChromium, watchPage, type SocketRecord } from '../harness/chromium.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { HEX64 } from '../harness/clients/tokens.js';
import { readWebuiFile } from '../harness/webui-file.js';

// One browser walks the first-setup page through one server life; each step builds on the one before.
describe('the first-setup page in a real browser', () => {
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let temporaryToken: string;
  let generatedToken: string;
  let sockets: SocketRecord[] = [];
  let consoleMessages: string[] = [];
  let pageErrors: string[] = [];
  const verifyAnswers: Array<Record<string, unknown>> = [];
  const referers: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchChromium()]);
    temporaryToken = readWebuiFile(server.dataDir).access_token;
    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    page = await context.newPage();
    ({ sockets, consoleMessages, pageErrors } = watchPage(page));
    page.on('request', (request) => {
      const referer = request.headers()['referer'];
      if (referer !== undefined) referers.push(referer);
    });
    page.on('response', (response) => {
      if (response.url().endsWith('/api/webui/auth/verify'))
        void response.json().then((body: Record<string, unknown>) => verifyAnswers.push(body));
    });
  });

  afterAll(async () => {
    await browser?.close();
    await cleanupServers();
  });

  it('serves the page at / with a strict Content-Security-Policy and no caching', async () => {
    const response = await new HttpClient(server.baseUrl, { prefix: '' }).get('/');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; " +
        "base-uri 'none'; form-action 'self'",
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('logs in from /?token=... and removes the token from the address bar', async () => {
    await page.goto(`${server.baseUrl}/?token=${temporaryToken}`);
    await page.locator('#view-custom-token').waitFor({ state: 'visible' });
    expect(page.url()).toBe(`${server.baseUrl}/`);
    expect(page.url()).not.toContain(temporaryToken);
    // Referrer-Policy: no-referrer: the script, the style sheet and the API calls never carried the link.
    expect(referers.filter((referer) => referer.includes(temporaryToken))).toEqual([]);
    await expect(page.locator('#logout').isVisible()).resolves.toBe(true);
    expect(verifyAnswers[0]).toMatchObject({ valid: true, is_first_setup: true, token_source: 'temporary', requires_custom_token: true });
  });

  it('keeps the session cookie HttpOnly: the browser holds it, page scripts cannot read it', async () => {
    const cookies = await context.cookies(server.baseUrl);
    const session = cookies.find((cookie) => cookie.name === 'bot_session');
    expect(session?.value).toBe(temporaryToken);
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    expect(await page.evaluate(() => document.cookie)).not.toContain('bot_session');
  });

  it('shows every broken rule of a weak custom token', async () => {
    await page.locator('#new-token').fill('weak');
    await page.getByRole('button', { name: 'Set this token' }).click();
    const violations = page.locator('#violations li');
    await violations.first().waitFor({ state: 'visible' });
    const codes = await violations.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset['violation']));
    expect(codes).toEqual(['too_short', 'missing_uppercase', 'missing_special']);
    expect(await page.locator('#violations').textContent()).toContain('at least 10 characters');
    expect(readWebuiFile(server.dataDir).token_source).toBe('temporary');
  });

  it('regenerates: shows the new token once with a copy button, then logs in again with it', async () => {
    await page.getByRole('button', { name: 'Generate a random token' }).click();
    await page.locator('#new-token-panel').waitFor({ state: 'visible' });
    generatedToken = (await page.locator('#new-token-value').textContent()) ?? '';
    expect(generatedToken).toMatch(HEX64);
    expect(await page.locator('#new-token-panel').textContent()).toContain('will not be shown again');

    const copy = page.getByRole('button', { name: 'Copy token' });
    await copy.click();
    await page.locator('#copy-status', { hasText: /Copied|selected/ }).waitFor();
    if ((await page.locator('#copy-status').textContent())?.startsWith('Copied')) {
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(generatedToken);
    }

    // The old cookie was cleared by /auth/regenerate; the page verifies the new token by itself.
    await page.locator('#view-setup').waitFor({ state: 'visible' });
    expect(verifyAnswers).toHaveLength(2);
    expect(verifyAnswers[1]).toMatchObject({ valid: true, token_source: 'configured', requires_custom_token: false });
    const file = readWebuiFile(server.dataDir);
    expect(file.token_source).toBe('configured');
    expect(file.access_token).toBe(generatedToken);

    const session = (await context.cookies(server.baseUrl)).find((cookie) => cookie.name === 'bot_session');
    expect(session?.value).toBe(generatedToken);
    expect(session?.httpOnly).toBe(true);
    expect(await page.evaluate(() => document.cookie)).not.toContain('bot_session');
  });

  it('completes the first setup', async () => {
    await page.getByRole('button', { name: 'Complete setup' }).click();
    await page.locator('#view-status').waitFor({ state: 'visible' });
    expect(readWebuiFile(server.dataDir).first_setup_completed).toBe(true);
  });

  it('streams the server log over a WebSocket opened with a one-time ticket', async () => {
    await page.locator('#log-list li', { hasText: 'first setup completed' }).waitFor();
    const rows = page.locator('#log-list li');
    expect(await rows.count()).toBeGreaterThan(3);
    const first = rows.first();
    expect(await first.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await first.locator('.log-level').textContent()).toMatch(/^(DEBUG|INFO|WARNING|ERROR|CRITICAL)$/);
    expect(await page.locator('#log-state').textContent()).toBe('Live');

    // The first socket was opened under the temporary token and closed (4001) when it changed; a second followed.
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    const tickets = sockets.map((socket) => new URL(socket.url).searchParams.get('token'));
    for (const socket of sockets)
      expect(socket.url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${server.port}/api/webui/ws\\?token=[A-Za-z0-9_-]{43}$`));
    expect(new Set(tickets).size).toBe(tickets.length);
    expect(tickets).not.toContain(temporaryToken);
    expect(tickets).not.toContain(generatedToken);
    const live = sockets.at(-1) as SocketRecord;
    expect(live.closed).toBe(false);
    const events = live.received.map((frame) => JSON.parse(frame) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
    expect(events.some((event) => event['event'] === 'snapshot')).toBe(true);
    const entries = events.filter((event) => event['event'] === 'entry');
    expect(entries.length).toBeGreaterThan(0);
    // The page shows what the dashboard would: live lines travel as data.entry with a string id.
    for (const entry of entries)
      expect(entry['data']).toEqual({
        entry: expect.objectContaining({ id: expect.any(String), level: expect.stringMatching(/^(DEBUG|INFO|WARNING|ERROR|CRITICAL)$/) }),
      });
  });

  it('shows the same status view after a reload, styled by its stylesheet and no wider than the window', async () => {
    const facts = async () => ({
      setup: await page.locator('#status-setup').textContent(),
      token: await page.locator('#status-token').textContent(),
    });
    const before = await facts();
    await page.reload();
    await page.locator('#view-status').waitFor({ state: 'visible' });
    await page.locator('#log-list li').first().waitFor();
    expect(await facts()).toEqual(before);
    expect(before.setup).not.toBe('');
    expect(await page.locator('#view-login').isVisible()).toBe(false);
    // setup.css was loaded under the page's CSP (a card's 0.5rem corners), and nothing overflows sideways.
    const layout = await page.evaluate(() => ({
      cardRadius: getComputedStyle(document.querySelector('#view-status') as Element).borderTopLeftRadius,
      sidewaysOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    }));
    expect(layout).toEqual({ cardRadius: '8px', sidewaysOverflow: 0 });
  });

  it('breaks no rule of the Content-Security-Policy, throws no error and never presents a dead cookie', () => {
    expect(pageErrors).toEqual([]);
    expect(consoleMessages.filter((line) => /Content Security Policy|Refused to/i.test(line))).toEqual([]);
    // A stale bot_session counts as a failed login (docs/decisions/0004-guessing-through-the-cookie.md): the page must not send one after changing the token.
    expect(server.logs().filter((line) => line.msg === 'session cookie rejected')).toEqual([]);
  });

  it('logs out: the cookie is gone and the login form is back', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('#view-login').waitFor({ state: 'visible' });
    expect((await context.cookies(server.baseUrl)).some((cookie) => cookie.name === 'bot_session')).toBe(false);
    await expect(page.getByLabel('Access token', { exact: true }).isVisible()).resolves.toBe(true);
  });
});
