import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { launchChromium } from '../harness/chromium.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { dataDirFiles, readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

const KEY_NAME = 'deploy-bot';
const KEY_SHAPE = /^wk_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 3_600_000;

interface KeyEntryJson {
  name: string;
  scope: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  expired: boolean;
}

// One browser walks the API keys panel through one server life; each step builds on the one before.
describe('the API keys panel of the first-setup page in a real browser', () => {
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  /** The key as the page showed it, once. */
  let key: string;
  /** Logged in over HTTP with the access token, to read the list as the API gives it. */
  let operator: HttpClient;
  const consoleMessages: string[] = [];
  const pageErrors: string[] = [];
  const requestUrls: string[] = [];

  /** A fresh client with no cookie: the key alone is the credential. */
  const withKey = (method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    new HttpClient(server.baseUrl).request(method, path, {
      headers: { authorization: `Bearer ${key}` },
      cookie: null,
      ...(body === undefined ? {} : { body }),
    });
  async function listed(): Promise<KeyEntryJson[]> {
    const response = await operator.get('/keys');
    expect(response.status, response.text).toBe(200);
    return response.json?.['keys'] as KeyEntryJson[];
  }
  const rows = () => page.locator('#keys-rows tr');
  const rowOf = (name: string): Locator => page.locator('#keys-rows tr', { has: page.locator('th', { hasText: name }) });
  /** Every file of the data directory as text: where a plaintext key must never land. */
  const dataDirText = () =>
    dataDirFiles(server.dataDir)
      .map((name) => join(server.dataDir, name))
      .filter((path) => statSync(path).isFile())
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchChromium()]);
    token = readWebuiFile(server.dataDir).access_token;
    operator = new HttpClient(server.baseUrl);
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });

    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    page = await context.newPage();
    page.on('console', (message) => consoleMessages.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => requestUrls.push(request.url()));
  });

  afterAll(async () => {
    await browser?.close();
    await cleanupServers();
  });

  it('is hidden before login', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.locator('#view-login').waitFor({ state: 'visible' });
    expect(await page.locator('#keys-panel').isHidden()).toBe(true);
  });

  it('after a login shows the empty list and the create form', async () => {
    await page.getByLabel('Access token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#view-custom-token').waitFor({ state: 'visible' });
    await page.locator('#keys-empty').waitFor({ state: 'visible' });
    expect(await page.locator('#keys-table').isHidden()).toBe(true);
    expect(await page.getByLabel('Scope', { exact: true }).inputValue()).toBe('read');
    expect(await page.getByLabel('Expires', { exact: true }).inputValue()).toBe('');
    expect(await page.locator('#key-expiry option').allTextContents()).toEqual(['never', 'in 30 days', 'in 90 days', 'in 365 days']);
  });

  it('creates an admin key that expires in 90 days and shows it once, with a Copy button', async () => {
    await page.getByLabel('Name', { exact: true }).fill(KEY_NAME);
    await page.getByLabel('Scope', { exact: true }).selectOption('admin');
    await page.getByLabel('Expires', { exact: true }).selectOption('90d');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor({ state: 'visible' });

    key = await page.locator('#new-key-value').inputValue();
    expect(key).toMatch(KEY_SHAPE);
    expect(await page.locator('#new-key-value').getAttribute('readonly')).not.toBeNull();
    expect(await page.locator('#new-key').textContent()).toContain('will not be shown again');
    expect(await page.locator('#new-key-name').textContent()).toBe(KEY_NAME);
    // The form is ready for the next key.
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('');

    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.locator('#copy-key-status', { hasText: /Copied|selected/ }).waitFor();
    if ((await page.locator('#copy-key-status').textContent())?.startsWith('Copied')) {
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    }
  });

  it('lists the key with its scope, creation, 90-day expiry and "never" used', async () => {
    await rowOf(KEY_NAME).waitFor();
    const [entry] = (await listed()) as [KeyEntryJson];
    expect(entry).toMatchObject({ name: KEY_NAME, scope: 'admin', last_used_at: null, expired: false });
    expect(Date.parse(String(entry.expires_at)) - Date.parse(entry.created_at)).toBe(90 * DAY_MS);

    const row = rowOf(KEY_NAME);
    expect(await rows().count()).toBe(1);
    expect(await row.locator('.key-scope').textContent()).toBe('admin');
    expect(await row.locator('.key-created time').getAttribute('datetime')).toBe(entry.created_at);
    expect(await row.locator('.key-expires time').getAttribute('datetime')).toBe(entry.expires_at);
    // More than a day ahead: shown with its date.
    expect(await row.locator('.key-expires time').textContent()).toMatch(/\d{4}|\d{1,2}[./]\d{1,2}/);
    expect(await row.locator('.key-expires .expired-mark').count()).toBe(0);
    expect(await row.locator('.key-last-used').textContent()).toBe('never');
    expect(await page.locator('#keys-empty').isHidden()).toBe(true);
  });

  it('the key works as a bearer with admin scope, but may not manage keys', async () => {
    const status = await withKey('GET', '/setup/status');
    expect(status.status, status.text).toBe(200);
    expect(status.json).toMatchObject({ is_first_setup: true });
    expect(status.setCookie).toEqual([]);
    expectErrorBody(await withKey('POST', '/keys', { name: 'sneaky', scope: 'admin' }), 403, 'insufficient_scope');
    expect((await listed()).map((entry) => entry.name)).toEqual([KEY_NAME]);
  });

  it('keeps the key out of the address bar, the requests, storage, cookies, the console and the data directory', async () => {
    expect(page.url()).toBe(`${server.baseUrl}/`);
    expect(requestUrls.filter((url) => url.includes(key))).toEqual([]);
    expect(
      await page.evaluate(() => [JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage }), document.cookie].join(' ')),
    ).not.toContain(key);
    expect(consoleMessages.filter((line) => line.includes(key))).toEqual([]);
    expect(readFileSync(webuiFilePath(server.dataDir), 'utf8')).not.toContain(key);
    expect(readWebuiFile(server.dataDir)['api_keys']).toEqual([expect.objectContaining({ name: KEY_NAME, scope: 'admin' })]);
    expect(dataDirText()).not.toContain(key);
    expect(server.stdout() + server.stderr()).not.toContain(key);
  });

  it("shows the server's detail when a create is refused, and the shown key is gone by then", async () => {
    await page.getByLabel('Name', { exact: true }).fill(KEY_NAME);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#keys-error').waitFor({ state: 'visible' });
    expect(await page.locator('#keys-error').textContent()).toBe('A key with this name exists; revoke it first or choose another name.');
    expect(await page.locator('#new-key').isHidden()).toBe(true);
    expect(await page.locator('#new-key-value').inputValue()).toBe('');

    await page.getByLabel('Name', { exact: true }).fill('no spaces allowed');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#keys-error', { hasText: 'letters, digits' }).waitFor();
    expect((await listed()).map((entry) => entry.name)).toEqual([KEY_NAME]);
  });

  it('Reload shows when the key was last used, and never the key again', async () => {
    await page.getByRole('button', { name: 'Reload' }).click();
    const lastUsed = rowOf(KEY_NAME).locator('.key-last-used time');
    await lastUsed.waitFor();
    const [entry] = (await listed()) as [KeyEntryJson];
    expect(await lastUsed.getAttribute('datetime')).toBe(entry.last_used_at);
    expect(await page.locator('#keys-error').isHidden()).toBe(true);
    expect(await page.locator('#new-key').isHidden()).toBe(true);
    expect(await page.locator('#keys-panel').textContent()).not.toContain(key);
  });

  it('revokes on the second press of Revoke; the key is refused at once', async () => {
    const revoke = rowOf(KEY_NAME).getByRole('button', { name: 'Revoke' });
    await revoke.click();
    expect(await revoke.textContent()).toBe('Confirm revoke');
    // One press changes nothing.
    expect((await withKey('GET', '/setup/status')).status).toBe(200);

    await revoke.click();
    await rowOf(KEY_NAME).waitFor({ state: 'detached' });
    await page.locator('#keys-empty').waitFor({ state: 'visible' });
    expect(await page.locator('#notice').textContent()).toBe(`Revoked ${KEY_NAME}: it is refused from now on.`);
    expect(await listed()).toEqual([]);

    const refused = await withKey('GET', '/setup/status');
    expect(refused.status, refused.text).toBe(401);
    expectErrorBody(refused, 401);
    expect(readWebuiFile(server.dataDir)['api_keys']).toEqual([]);
    expect(dataDirText()).not.toContain(key);
  });

  it('a reload after the session is gone (401) returns to the login form with the reason', async () => {
    await context.clearCookies();
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.locator('#view-login').waitFor({ state: 'visible' });
    expect(await page.locator('#login-error').textContent()).toBe('Your session has ended; log in again.');
    expect(await page.locator('#keys-panel').isHidden()).toBe(true);
    expect(await rows().count()).toBe(0);
  });

  it('breaks no rule of the Content-Security-Policy and throws no error', () => {
    expect(pageErrors).toEqual([]);
    expect(consoleMessages.filter((line) => /Content Security Policy|Refused to/i.test(line))).toEqual([]);
  });
});
