import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, eventually, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { modeOf, readWebuiFile } from '../harness/webui-file.js';
import { connect, type WsClient } from '../harness/clients/ws-client.js';

afterAll(cleanupServers);

const KEY = /^wk_[A-Za-z0-9_-]{43}$/;

type AuditLine = Record<string, unknown> & { time: string; event: string; address: string | null; via: string };

/**
 * API keys and Authorization: Bearer (issue 19) against the real process over real sockets: scopes,
 * revocation at once, the key's WebSocket, and the audit trail in data/audit.log and on the channel.
 */
describe('API keys, bearer authentication and the audit trail', () => {
  let server: ServerProcess;
  let token: string;
  /** Logged in with the access token from 127.0.0.20: the operator's browser session. */
  let operator: HttpClient;
  const secrets: string[] = [];
  const bearer = (secret: string, localAddress = '127.0.0.21') => {
    const client = new HttpClient(server.baseUrl, { localAddress });
    const headers = { authorization: `Bearer ${secret}` };
    return {
      get: (path: string) => client.get(path, { headers, cookie: null }),
      post: (path: string, body?: unknown) => client.post(path, { headers, cookie: null, ...(body === undefined ? {} : { body }) }),
      delete: (path: string) => client.request('DELETE', path, { headers, cookie: null }),
    };
  };
  const createKey = async (name: string, scope: 'read' | 'admin', expires: string | null = null): Promise<string> => {
    const created = await operator.post('/keys', { body: { name, scope, expires } });
    expect(created.status, created.text).toBe(200);
    const key = created.json?.['key'] as string;
    expect(key).toMatch(KEY);
    secrets.push(key);
    return key;
  };
  const auditLines = (): AuditLine[] =>
    readFileSync(join(server.dataDir, 'audit.log'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditLine);
  const openChannel = async (ticketFrom: () => Promise<{ json: Record<string, unknown> | null }>): Promise<WsClient> => {
    const ticket = (await ticketFrom()).json?.['token'] as string;
    secrets.push(ticket);
    const handshake = await connect(server, ticket);
    if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
    await handshake.client.waitFor((message) => message['event'] === 'ready', 3_000, 'system/ready');
    return handshake.client;
  };

  beforeAll(async () => {
    server = await startServer();
    token = readWebuiFile(server.dataDir).access_token;
    secrets.push(token);
    operator = new HttpClient(server.baseUrl, { localAddress: '127.0.0.20' });
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    secrets.push(operator.cookie('bot_session') as string);
  });

  it('a read key reads and opens the WebSocket, and is refused every change with 403 and the error body (docs/decisions/0001-error-bodies.md)', async () => {
    const key = await createKey('monitor', 'read', '90d');
    const script = bearer(key);
    const status = await script.get('/setup/status');
    expect(status.status).toBe(200);
    expect(status.setCookie).toEqual([]);
    expect((await script.get('/security/bans')).status).toBe(200);
    const refused = await script.post('/setup/complete');
    expectErrorBody(refused, 403, 'insufficient_scope');
    expect(refused.json?.['detail']).toMatch(/read scope/);
    expectErrorBody(await script.post('/keys', { name: 'escalate', scope: 'admin' }), 403, 'insufficient_scope');
    const channel = await openChannel(() => script.get('/ws-token'));
    channel.close();
    expect(readWebuiFile(server.dataDir).first_setup_completed).toBe(false);
  });

  it('an admin key changes state from a script without Origin checks or cookies, but cannot manage keys or the token', async () => {
    const key = await createKey('deploy', 'admin');
    const script = bearer(key);
    const complete = await script.post('/setup/complete');
    expect(complete.status, complete.text).toBe(200);
    expect(complete.setCookie).toEqual([]);
    expect(readWebuiFile(server.dataDir).first_setup_completed).toBe(true);
    expectErrorBody(await script.post('/auth/regenerate'), 403, 'insufficient_scope');
    expectErrorBody(await script.delete('/keys/monitor'), 403, 'insufficient_scope');
    expect(readWebuiFile(server.dataDir).access_token).toBe(token);
  });

  it('the access token works as a bearer, and a cookie that disagrees with the bearer gets 400', async () => {
    expect((await bearer(token).get('/auth/check')).json).toMatchObject({ authenticated: true });
    const someKey = secrets.find((secret) => secret.startsWith('wk_')) as string;
    const both = await operator.get('/setup/status', { headers: { authorization: `Bearer ${someKey}` } });
    expectErrorBody(both, 400, 'conflicting_credentials');
  });

  it('webui.json keeps each key as its SHA-256 with its metadata, never the key', () => {
    const file = readFileSync(join(server.dataDir, 'webui.json'), 'utf8');
    const keys = (JSON.parse(file) as { api_keys: Array<Record<string, unknown>> }).api_keys;
    expect(keys.map((key) => [key['name'], key['scope']])).toEqual([
      ['monitor', 'read'],
      ['deploy', 'admin'],
    ]);
    for (const key of keys) expect(key['key_sha256']).toMatch(/^[0-9a-f]{64}$/);
    for (const secret of secrets.filter((secret) => secret.startsWith('wk_'))) expect(file).not.toContain(secret.slice(3));
  });

  it(
    'a revoked key is refused at once, its WebSocket closes with 4001 "API key revoked", and the security domain ' + 'streams it all',
    async () => {
      const key = await createKey('temporary-script', 'read');
      const script = bearer(key, '127.0.0.22');
      const keySocket = await openChannel(() => script.get('/ws-token'));
      const dashboard = await openChannel(() => operator.get('/ws-token'));
      const subscribed = await dashboard.request({ op: 'subscribe', domain: 'security', topic: 'main' });
      expect(subscribed).toMatchObject({ ok: true });
      await dashboard.waitFor((message) => message['domain'] === 'security' && message['event'] === 'snapshot', 3_000, 'security snapshot');

      const revoked = await operator.request('DELETE', '/keys/temporary-script');
      expect(revoked.json).toMatchObject({ success: true, revoked: { name: 'temporary-script' } });
      expectErrorBody(await script.get('/setup/status'), 401, 'invalid_credentials');
      // The key's own reason, not the token's: the token did not change.
      expect(await keySocket.closedWithin(3_000)).toEqual({ code: 4001, reason: 'API key revoked' });

      await new HttpClient(server.baseUrl, { localAddress: '127.0.0.23' }).post('/auth/verify', {
        body: { token: 'not-the-token-1' },
        cookie: null,
      });
      const live = await dashboard.waitFor(
        (message) => message['event'] === 'login_failed' && (message['data'] as AuditLine).address === '127.0.0.23',
        3_000,
        'live login_failed',
      );
      expect(live).toMatchObject({
        op: 'event',
        domain: 'security',
        topic: 'main',
        data: { event: 'login_failed', address: '127.0.0.23', via: 'api', how: 'verify', counted: true },
      });
      expect(dashboard.messages.some((message) => message['event'] === 'key_revoked')).toBe(true);
      dashboard.close();
    },
  );

  it('data/audit.log (0600) has every event with its address, and no token, key, cookie or ticket', async () => {
    const path = join(server.dataDir, 'audit.log');
    await eventually(
      () => auditLines().some((line) => line.event === 'login_failed' && line.address === '127.0.0.23'),
      3_000,
      'the failed login in audit.log',
    );
    expect(modeOf(path)).toBe(0o600);
    const lines = auditLines();
    for (const line of lines) {
      expect(Object.keys(line).slice(0, 4)).toEqual(['time', 'event', 'address', 'via']);
      expect(new Date(line.time).toISOString()).toBe(line.time);
    }
    const seen = (event: string) => lines.filter((line) => line.event === event);
    expect(seen('login_succeeded')).toContainEqual(expect.objectContaining({ address: '127.0.0.20', via: 'api', how: 'verify' }));
    expect(seen('key_created').map((line) => line['key'])).toEqual(['monitor', 'deploy', 'temporary-script']);
    expect(seen('key_first_used').map((line) => [line['key'], line.address])).toEqual([
      ['monitor', '127.0.0.21'],
      ['deploy', '127.0.0.21'],
      ['temporary-script', '127.0.0.22'],
    ]);
    expect(seen('key_revoked')).toEqual([expect.objectContaining({ key: 'temporary-script', address: '127.0.0.20', via: 'api' })]);
    expect(seen('setup_completed')).toEqual([expect.objectContaining({ address: '127.0.0.21', via: 'api' })]);
    expect(seen('login_failed')).toContainEqual(
      expect.objectContaining({ address: '127.0.0.23', how: 'verify', counted: true, remaining: 4 }),
    );
    const text = readFileSync(path, 'utf8');
    for (const secret of [...secrets, 'not-the-token-1']) expect(text).not.toContain(secret);
  });
});

describe('the audit file is bounded', () => {
  it('rotates by audit_max_bytes and keeps audit_keep files, each 0600', async () => {
    const server = await startServer({ config: '[webui]\naudit_max_bytes = 4096\naudit_keep = 2\n' });
    // Twenty addresses, four failures each: 80 lines of some 130 bytes, more than two files' worth.
    for (let host = 30; host < 50; host++) {
      const client = new HttpClient(server.baseUrl, { localAddress: `127.0.0.${host}` });
      for (let i = 0; i < 4; i++) await client.post('/auth/verify', { body: { token: `wrong-${host}-${i}` }, cookie: null });
    }
    const path = join(server.dataDir, 'audit.log');
    const files = [path, `${path}.1`, `${path}.2`];
    for (const file of files) {
      expect(modeOf(file), file).toBe(0o600);
      expect(readFileSync(file).byteLength, file).toBeLessThanOrEqual(4096);
    }
    expect(() => readFileSync(`${path}.3`)).toThrow();
    const newest = readFileSync(path, 'utf8').trim().split('\n').at(-1) as string;
    expect(JSON.parse(newest)).toMatchObject({ event: 'login_failed', address: '127.0.0.49' });
  });
});

describe('token changes the server did not make', () => {
  it('audits the temporary token of a start and a hand edit of webui.json, without either token', async () => {
    const server = await startServer();
    const path = join(server.dataDir, 'webui.json');
    const before = readWebuiFile(server.dataDir);
    const edited = 'Hand-Edited-Token-42!';
    writeFileSync(path, JSON.stringify({ ...before, access_token: edited, token_source: 'configured' }), { mode: 0o600 });
    const lines = () =>
      readFileSync(join(server.dataDir, 'audit.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditLine);
    await eventually(() => lines().some((line) => line.via === 'hand_edit'), 5_000, 'the hand edit in audit.log');
    expect(lines().map((line) => [line.event, line.via, line['how']])).toEqual([
      ['token_changed', 'startup', 'temporary'],
      ['token_changed', 'hand_edit', 'hand_edit'],
    ]);
    const text = readFileSync(join(server.dataDir, 'audit.log'), 'utf8');
    for (const secret of [before.access_token, edited]) expect(text).not.toContain(secret);
  });
});
