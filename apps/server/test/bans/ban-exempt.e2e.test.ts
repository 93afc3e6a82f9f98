import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, eventually, startServer, type LogLine, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const WARN = 40;
const WIDE_EXEMPTION_LOG = 'webui.ban_exempt covers more than a /24 (IPv4) or /48 (IPv6): nobody in it is ever banned';
const wideBannerLine = (entry: string) => `webui.ban_exempt ${entry} is wider than a /24 (IPv4) or /48 (IPv6)`;

const banExemptConfig = (entries: string[]) =>
  ['[webui]', `ban_exempt = [${entries.map((entry) => JSON.stringify(entry)).join(', ')}]`, ''].join('\n');

describe('webui.ban_exempt = ["127.0.0.50", ...]: never banned, still logged', () => {
  let server: ServerProcess;
  let token: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const wrong = (client: HttpClient, n: number) => client.post('/auth/verify', { body: { token: `wrong-guess-${n}` }, cookie: null });
  const exemptFailures = () => server.logs().filter((line) => line.msg === 'login failed' && line['ip'] === '127.0.0.50');

  beforeAll(async () => {
    // A /24 and a /48 are exactly as wide as an exemption may be without a warning.
    server = await startServer({ config: banExemptConfig(['127.0.0.50', '192.168.1.0/24', 'fd00:1:2::/48']) });
    token = readWebuiFile(server.dataDir).access_token;
  });

  it('20 wrong verifies from 127.0.0.50 are never answered 429 nor counted down, and then the right token logs in', async () => {
    const exempt = from('127.0.0.50');
    const answers: HttpResponse[] = [];
    for (let n = 1; n <= 20; n++) answers.push(await wrong(exempt, n));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toMatchObject({ valid: false });
      // Nothing to count down: the address is never blocked.
      expect(answer.json).not.toHaveProperty('remaining_attempts');
    }
    const login = await exempt.post('/auth/verify', { body: { token } });
    expect(login.status, login.text).toBe(200);
    expect(login.json).toMatchObject({ valid: true });
  });

  it("the exempt address's 20 failures are still in the log, marked as not counted", async () => {
    await eventually(() => exemptFailures().length >= 20, 5_000, '20 failure lines for 127.0.0.50');
    const lines = exemptFailures();
    expect(lines).toHaveLength(20);
    for (const line of lines) expect(line).toMatchObject({ via: 'verify', counted: false, reason: 'exempt' });
    expect(
      server.logs().some((line) => line.msg === 'client banned after repeated failed verifications' && line['ip'] === '127.0.0.50'),
    ).toBe(false);
  });

  it('the neighbour 127.0.0.51 is not exempt: banned after 5, even with the right token afterwards', async () => {
    const neighbour = from('127.0.0.51');
    for (let n = 1; n <= 4; n++) expect((await wrong(neighbour, n)).status).toBe(200);
    expectErrorBody(await wrong(neighbour, 5), 429, 'too_many_attempts');
    expectErrorBody(await neighbour.post('/auth/verify', { body: { token }, cookie: null }), 429, 'too_many_attempts');
  });

  it('GET /security/bans lists the neighbour and not the exempt address', async () => {
    const operator = from('127.0.0.50');
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const response = await operator.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    expect((response.json?.['bans'] as Array<{ key: string }>).map((entry) => entry.key)).toEqual(['127.0.0.51']);
  });

  it('exemptions no wider than a /24 or /48 print no warning', () => {
    expect(server.stderr()).not.toContain('webui.ban_exempt');
    expect(server.logs().some((line) => line.msg === WIDE_EXEMPTION_LOG)).toBe(false);
  });
});

describe('webui.ban_exempt wider than a /24 or /48', () => {
  it('is warned about in the startup banner on stderr and in the log, naming each wide entry', async () => {
    const server = await startServer({ config: banExemptConfig(['10.0.0.0/8', '127.0.0.50', 'fd00::/47']) });
    await eventually(() => server.stderr().includes('login URL'), 5_000, 'banner on stderr');
    expect(server.stderr()).toContain(wideBannerLine('10.0.0.0/8'));
    expect(server.stderr()).toContain(wideBannerLine('fd00::/47'));
    expect(server.stderr()).not.toContain(wideBannerLine('127.0.0.50'));

    const warning = server.logs().find((line: LogLine) => line.msg === WIDE_EXEMPTION_LOG);
    expect(warning).toMatchObject({ level: WARN, banExempt: ['10.0.0.0/8', 'fd00::/47'] });
  });
});
