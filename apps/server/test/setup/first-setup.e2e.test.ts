import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, parseSetCookie, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { HEX64, STRONG_TOKEN } from '../harness/clients/tokens.js';
import { modeOf, readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

afterAll(cleanupServers);

function sessionCookieOf(response: HttpResponse) {
  const line = response.setCookie.find((entry) => entry.startsWith('bot_session='));
  expect(line, 'a bot_session Set-Cookie').toBeDefined();
  return parseSetCookie(line as string);
}

function expectCleared(response: HttpResponse): void {
  const cookie = sessionCookieOf(response);
  expect(cookie.value).toBe('');
  expect(cookie.attributes.get('max-age')).toBe('0');
  expect(cookie.attributes.get('path')).toBe('/');
}

// One server life walks the specification's "Recommended first-setup order"; each step builds on the one before.
describe('first start and the recommended first-setup order', () => {
  let server: ServerProcess;
  let client: HttpClient;
  let temporaryToken: string;

  beforeAll(async () => {
    server = await startServer();
    client = new HttpClient(server.baseUrl);
  });

  it('creates data/webui.json (0600 in a 0700 dir) with a temporary 64-hex token and setup not completed', () => {
    expect(server.dataDir).toBe(join(server.cwd, 'data'));
    const path = webuiFilePath(server.dataDir);
    expect(existsSync(path)).toBe(true);
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(server.dataDir)).toBe(0o700);
    const file = readWebuiFile(server.dataDir);
    expect(file.access_token).toMatch(HEX64);
    expect(file.token_source).toBe('temporary');
    expect(file.first_setup_completed).toBe(false);
    temporaryToken = file.access_token;
  });

  it('prints the temporary token in the startup log and in the stderr banner with a login URL', async () => {
    const line = server.logs().find((entry) => entry['temporary_token'] !== undefined);
    expect(line?.['temporary_token']).toBe(temporaryToken);
    await eventually(() => server.stderr().includes('login URL'), 5_000, 'banner on stderr');
    expect(server.stderr()).toContain(temporaryToken);
    expect(server.stderr()).toContain(`${server.baseUrl}/?token=${temporaryToken}`);
  });

  it('1. GET /health answers healthy without a cookie', async () => {
    const response = await client.get('/health');
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ status: 'healthy', service: expect.any(String) });
  });

  it('2. POST /auth/verify with the temporary token logs in and reports first setup with a temporary token', async () => {
    const response = await client.post('/auth/verify', { body: { token: temporaryToken } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      valid: true,
      message: expect.any(String),
      is_first_setup: true,
      token_source: 'temporary',
      requires_custom_token: true,
    });
    const cookie = sessionCookieOf(response);
    expect(decodeURIComponent(cookie.value)).toBe(temporaryToken);
    expect(cookie.attributes.get('httponly')).toBe(true);
    expect(cookie.attributes.get('samesite')).toBe('Lax');
    expect(cookie.attributes.get('path')).toBe('/');
    expect(cookie.attributes.get('max-age')).toBe('604800');
    // Plain HTTP and webui.secure_cookie unset: a Secure cookie would never come back (docs/decisions/0006-session-cookie.md).
    expect(cookie.attributes.has('secure')).toBe(false);

    const status = await client.get('/setup/status');
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ is_first_setup: true, token_source: 'temporary', requires_custom_token: true });
  });

  it('3a. POST /auth/update sets a configured token, clears the cookie and kills the old token', async () => {
    const response = await client.post('/auth/update', { body: { new_token: STRONG_TOKEN } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ success: true, message: expect.any(String) });
    expectCleared(response);

    const file = readWebuiFile(server.dataDir);
    expect(file.access_token).toBe(STRONG_TOKEN);
    expect(file.token_source).toBe('configured');
    expect(modeOf(webuiFilePath(server.dataDir))).toBe(0o600);

    // The browser dropped the cookie; a script that kept it finds it dead.
    const stale = await client.get('/setup/status', { cookie: `bot_session=${temporaryToken}` });
    expectErrorBody(stale, 401);
    const verifyOld = await client.post('/auth/verify', { body: { token: temporaryToken } });
    expect(verifyOld.status).toBe(200);
    expect(verifyOld.json).toMatchObject({ valid: false });
    expect(verifyOld.setCookie).toEqual([]);
  });

  it('3b. POST /auth/verify with the new token gives a new cookie and no longer asks for a custom token', async () => {
    const response = await client.post('/auth/verify', { body: { token: STRONG_TOKEN } });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ valid: true, is_first_setup: true, token_source: 'configured', requires_custom_token: false });
    expect(decodeURIComponent(sessionCookieOf(response).value)).toBe(STRONG_TOKEN);

    const status = await client.get('/setup/status');
    expect(status.json).toMatchObject({ is_first_setup: true, token_source: 'configured', requires_custom_token: false });
  });

  it('GET /ws-token issues a 43-character URL-safe ticket valid for 60 s', async () => {
    const response = await client.get('/ws-token');
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ success: true, expires_in: 60 });
    expect(response.json?.['token']).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await client.get('/ws-token');
    expect(again.json?.['token']).not.toBe(response.json?.['token']);
  });

  it('5. POST /setup/complete closes first setup and writes first_setup_completed', async () => {
    const response = await client.post('/setup/complete');
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ success: true, is_first_setup: false });
    expect(readWebuiFile(server.dataDir).first_setup_completed).toBe(true);

    const status = await client.get('/setup/status');
    expect(status.json).toMatchObject({ is_first_setup: false });
    const verify = await client.post('/auth/verify', { body: { token: STRONG_TOKEN } });
    expect(verify.json).toMatchObject({ valid: true, is_first_setup: false });
  });

  describe('after a restart on the same data directory', () => {
    let restarted: ServerProcess;

    beforeAll(async () => {
      expect(await server.stop()).toBe(0);
      restarted = await startServer({ cwd: server.cwd });
    });

    it('keeps the configured token and the setup state', () => {
      const file = readWebuiFile(restarted.dataDir);
      expect(restarted.dataDir).toBe(server.dataDir);
      expect(file.access_token).toBe(STRONG_TOKEN);
      expect(file.token_source).toBe('configured');
      expect(file.first_setup_completed).toBe(true);
    });

    it('prints no token at all: the configured token is nowhere in stdout or stderr', async () => {
      await eventually(() => restarted.stderr().includes('WebUI management API'), 5_000, 'banner on stderr');
      expect(restarted.stdout()).not.toContain(STRONG_TOKEN);
      expect(restarted.stderr()).not.toContain(STRONG_TOKEN);
      expect(restarted.logs().some((line) => 'temporary_token' in line)).toBe(false);
      expect(restarted.stderr()).not.toContain('?token=');
    });

    it('logs in with the configured token, first setup still completed', async () => {
      const fresh = new HttpClient(restarted.baseUrl);
      const response = await fresh.post('/auth/verify', { body: { token: STRONG_TOKEN } });
      expect(response.json).toMatchObject({ valid: true, is_first_setup: false, token_source: 'configured', requires_custom_token: false });
      const status = await fresh.get('/setup/status');
      expect(status.json).toMatchObject({ is_first_setup: false, token_source: 'configured' });
    });

    it('POST /auth/regenerate returns a 64-hex token once, writes it, and the old token dies at once', async () => {
      const fresh = new HttpClient(restarted.baseUrl);
      await fresh.post('/auth/verify', { body: { token: STRONG_TOKEN } });
      const response = await fresh.post('/auth/regenerate');
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ success: true, message: expect.any(String) });
      const token = String(response.json?.['token']);
      expect(token).toMatch(HEX64);
      expectCleared(response);

      const file = readWebuiFile(restarted.dataDir);
      expect(file.access_token).toBe(token);
      expect(file.token_source).toBe('configured');
      expect(file.first_setup_completed).toBe(true);

      expectErrorBody(await fresh.get('/setup/status', { cookie: `bot_session=${STRONG_TOKEN}` }), 401);
      expect((await fresh.post('/auth/verify', { body: { token: STRONG_TOKEN } })).json).toMatchObject({ valid: false });
      const verify = await fresh.post('/auth/verify', { body: { token } });
      expect(verify.json).toMatchObject({ valid: true, token_source: 'configured', requires_custom_token: false });

      // Shown only in that one response: never echoed to the log or the banner.
      expect(restarted.stdout()).not.toContain(token);
      expect(restarted.stderr()).not.toContain(token);
    });
  });
});
