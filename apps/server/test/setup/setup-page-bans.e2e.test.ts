import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { launchChromium } from '../harness/chromium.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/** Source addresses of the clients that fail to log in; the browser itself comes from 127.0.0.1. */
const BANNED = '127.0.0.41';
const COUNTED = '127.0.0.42';
const LATER = '127.0.0.43';

interface BanEntryJson {
  key: string;
  failures: number;
  banned_until: string | null;
  last_attempt: string | null;
}

// One browser walks the bans panel through one server life; each step builds on the one before.
describe('the blocked-addresses panel of the first-setup page in a real browser', () => {
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  /** Logged in over HTTP from 127.0.0.1, to read the list as the API gives it. */
  let operator: HttpClient;
  const consoleMessages: string[] = [];
  const pageErrors: string[] = [];

  const from = (address: string) => new HttpClient(server.baseUrl, { localAddress: address });
  const verifyFrom = (address: string, candidate: string) => from(address).post('/auth/verify', { body: { token: candidate } });
  async function failFrom(address: string, count: number): Promise<HttpResponse> {
    let last: HttpResponse | undefined;
    for (let attempt = 1; attempt <= count; attempt++) last = await verifyFrom(address, `wrong-guess-${attempt}`);
    return last as HttpResponse;
  }
  async function listed(): Promise<BanEntryJson[]> {
    const response = await operator.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    return response.json?.['bans'] as BanEntryJson[];
  }
  const rows = () => page.locator('#bans-rows tr');
  const rowOf = (key: string): Locator => page.locator('#bans-rows tr', { has: page.locator('th', { hasText: key }) });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchChromium()]);
    token = readWebuiFile(server.dataDir).access_token;
    operator = new HttpClient(server.baseUrl);
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });

    expectErrorBody(await failFrom(BANNED, 5), 429, 'too_many_attempts');
    expect((await failFrom(COUNTED, 2)).json).toMatchObject({ valid: false });

    context = await browser.newContext();
    page = await context.newPage();
    page.on('console', (message) => consoleMessages.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await cleanupServers();
  });

  it('is hidden before login', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.locator('#view-login').waitFor({ state: 'visible' });
    expect(await page.locator('#bans-panel').isHidden()).toBe(true);
  });

  it('after a login with the temporary token lists the banned address with its ban, and the address with counted failures', async () => {
    await page.getByLabel('Access token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#view-custom-token').waitFor({ state: 'visible' });
    await rowOf(COUNTED).waitFor();

    const [ban, counted] = (await listed()) as [BanEntryJson, BanEntryJson];
    expect([ban.key, counted.key]).toEqual([BANNED, COUNTED]);
    expect(await rows().locator('th').allTextContents()).toEqual([BANNED, COUNTED]);

    const banned = rowOf(BANNED);
    expect(await banned.locator('.ban-failures').textContent()).toBe('0');
    // Shown in local time; the exact instant rides along in datetime.
    expect(await banned.locator('.ban-until time').getAttribute('datetime')).toBe(ban.banned_until);
    expect(await banned.locator('.ban-until time').textContent()).toMatch(/\d{1,2}[:.]\d\d[:.]\d\d/);
    expect(await banned.locator('.ban-last time').getAttribute('datetime')).toBe(ban.last_attempt);

    const onlyCounted = rowOf(COUNTED);
    expect(await onlyCounted.locator('.ban-failures').textContent()).toBe('2');
    expect(await onlyCounted.locator('.ban-until').textContent()).toBe('not banned');
    expect(await onlyCounted.locator('.ban-last time').getAttribute('datetime')).toBe(counted.last_attempt);

    expect(await page.getByRole('button', { name: 'Lift all' }).isVisible()).toBe(true);
    expect(await page.locator('#bans-empty').isHidden()).toBe(true);
  });

  it("lifts the ban with its row's Lift button: the list reloads without it, and the address logs in again", async () => {
    expectErrorBody(await verifyFrom(BANNED, token), 429, 'too_many_attempts');
    await rowOf(BANNED).getByRole('button', { name: 'Lift' }).click();
    await rowOf(BANNED).waitFor({ state: 'detached' });

    expect(await rows().locator('th').allTextContents()).toEqual([COUNTED]);
    expect(await page.locator('#notice').textContent()).toBe(`Lifted: ${BANNED}.`);
    // One row left: lifting all of it is the row's own button.
    expect(await page.getByRole('button', { name: 'Lift all' }).isHidden()).toBe(true);
    expect((await listed()).map((entry) => entry.key)).toEqual([COUNTED]);

    const again = await verifyFrom(BANNED, token);
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ valid: true });
  });

  it('Refresh shows failures counted since; Lift all empties the list and shows the empty line', async () => {
    expect((await failFrom(LATER, 1)).json).toMatchObject({ valid: false });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await rowOf(LATER).waitFor();
    expect(await rows().locator('th').allTextContents()).toEqual([LATER, COUNTED]);

    await page.getByRole('button', { name: 'Lift all' }).click();
    await page.locator('#bans-empty').waitFor({ state: 'visible' });
    expect(await rows().count()).toBe(0);
    expect(await page.locator('#bans-table').isHidden()).toBe(true);
    expect(await listed()).toEqual([]);
  });

  it('a refresh after the session is gone (401) returns to the login form with the reason', async () => {
    await context.clearCookies();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator('#view-login').waitFor({ state: 'visible' });
    expect(await page.locator('#login-error').textContent()).toBe('Your session has ended; log in again.');
    expect(await page.locator('#bans-panel').isHidden()).toBe(true);
    expect(await rows().count()).toBe(0);
  });

  it('breaks no rule of the Content-Security-Policy and throws no error', () => {
    expect(pageErrors).toEqual([]);
    expect(consoleMessages.filter((line) => /Content Security Policy|Refused to/i.test(line))).toEqual([]);
  });
});
