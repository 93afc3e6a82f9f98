import { SESSION_CHECK_TARGET } from '@webui/http-hono';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLines, startGateway, STAND_IN_TOKEN, type Gateway } from '../harness/proxies/gateway.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { parseRawResponses, rawExchange } from '../harness/clients/raw-exchange.js';
import { cleanupServers, defaultLauncher, type ServerLauncher, type ServerProcess } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams, type StandInUpstream } from '../harness/stand-in-upstream.js';
import { connect, type WsClient } from '../harness/clients/ws-client.js';

/**
 * The entry census (issue 43, item 6): every way into the running server, enumerated from what the server itself reports
 * (its OpenAPI document, the prefixes its startup line says it forwards, the channel domains its `unknown_topic` answer
 * lists, any other domain name being relayed) and the Node fast paths its startup line names, is put to the same four rules: no credential is
 * refused; a banned client presenting a credential gets 429; a read key's state change is refused; a foreign Origin on a
 * state change is refused. Nothing refused reaches a bot's handler (no bot_action audit line) or the upstream (the
 * stand-in records nothing). An entry added beside the pipeline then fails here with no case written for it.
 *
 * Two processes, each in front of the stand-in upstream: the server itself (apps/server's bundle, or apps/bun or
 * apps/deno; on Node with its fast paths for /auth/check and forwarded reads), and examples/bot, which mounts route groups and a channel domain.
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EXAMPLE_BOT = join(ROOT, 'examples', 'bot');
const require = createRequire(import.meta.url);

/** examples/bot on the runtime the suite runs against: Node runs its bundle (built here), Bun and Deno its sources. */
function exampleBotLauncher(runtime: string): ServerLauncher {
  if (runtime === 'bun') {
    const bun = join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe');
    return {
      name: 'bun',
      command: (_cwd, args) => ({ cmd: bun, args: ['--conditions=source', join(EXAMPLE_BOT, 'src', 'bun.ts'), ...args] }),
    };
  }
  if (runtime === 'deno') {
    const deno = (require('deno/install_api.cjs') as { runInstall(): string }).runInstall();
    return {
      name: 'deno',
      command: (cwd, args) => ({
        cmd: deno,
        args: [
          'run',
          '--quiet',
          `--config=${join(EXAMPLE_BOT, 'deno.json')}`,
          '--conditions=source',
          '--no-prompt',
          '--allow-net',
          '--allow-sys=hostname,networkInterfaces',
          '--allow-env',
          '--allow-read',
          `--allow-write=${cwd}`,
          join(EXAMPLE_BOT, 'src', 'deno.ts'),
          ...args,
        ],
      }),
    };
  }
  execFileSync(process.execPath, [join(EXAMPLE_BOT, 'build.mjs')], { stdio: 'inherit' });
  return { name: 'node', command: (_cwd, args) => ({ cmd: process.execPath, args: [join(EXAMPLE_BOT, 'dist', 'node.js'), ...args] }) };
}

const FOREIGN_ORIGIN = 'https://census.invalid';
const STATE_CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The forwarded paths and public paths the servers are started with; the forwarded ones are read back from the server. */
const FORWARDED = ['/api/webui', '/api/chat', '/api/planner'];
const PUBLIC_FORWARDED = ['/api/webui/version-compatibility'];

interface Entry {
  /** How the census found it, for the failure message. */
  source: 'openapi' | 'forwarded' | 'forwarded public' | 'fast path';
  method: string;
  path: string;
  isPublic: boolean;
  /** What it needs: its document's x-webui-scope, or its method's scope for a forwarded path; undefined when public. */
  scope: Scope | undefined;
}

type Scope = 'read' | 'admin' | 'access_token';
type Operation = { security?: unknown[]; 'x-webui-scope'?: Scope; responses?: unknown };
/** A forwarded path's scope, by its method alone: a read (GET, HEAD) needs read, anything else (OPTIONS too) admin. */
const methodScope = (method: string): Scope => (method === 'GET' || method === 'HEAD' ? 'read' : 'admin');

/** Every operation of the server's own OpenAPI document, its path parameters filled with a placeholder. */
function documentedEntries(document: { paths: Record<string, Record<string, Operation>> }): Entry[] {
  const entries: Entry[] = [];
  for (const [path, operations] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(operations)) {
      if (typeof operation !== 'object' || operation.responses === undefined) continue;
      entries.push({
        source: 'openapi',
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, 'census'),
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
        scope: operation['x-webui-scope'],
      });
    }
  return entries;
}

/** A way in that answered `res` refused it: an error status, or the dashboard's 200 `{success:false}` of /ws-token. */
function refused(res: HttpResponse): boolean {
  return res.status === 401 || res.status === 403 || res.status === 429 || res.json?.['success'] === false;
}

const label = (entry: Entry, what: string, res: HttpResponse) =>
  `${entry.source} ${entry.method} ${entry.path}, ${what}: ${res.status} ${res.text.slice(0, 200)}`;

interface Census {
  gateway: Gateway;
  upstream: StandInUpstream;
  readKey: string;
  adminKey: string;
  /** Entries of the HTTP side; the WebSocket's own handshake entry is left to the channel census. */
  http: Entry[];
  wsPath: string;
}

const targets = [
  { name: 'the server (its own routes, forwarded prefixes, relayed domains, fast path)', bot: false },
  { name: 'examples/bot (mounted route groups and a mounted channel domain too)', bot: true },
];

describe.each(targets)('the entry census of $name', ({ bot }) => {
  const nodeServer = defaultLauncher.name === 'node' && !bot;
  let census: Census;
  const clean = (gateway: Gateway, address: string) => new HttpClient(gateway.server.baseUrl, { localAddress: address, prefix: '' });

  beforeAll(async () => {
    const upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    const gateway = await startGateway({
      url: upstream.url,
      paths: FORWARDED,
      publicPaths: PUBLIC_FORWARDED,
      ...(bot ? { server: { launcher: exampleBotLauncher(defaultLauncher.name) } } : {}),
    });
    const created = await gateway.operator.post('/api/webui/keys', { body: { name: 'census-reader', scope: 'read', expires: null } });
    expect(created.status, created.text).toBe(200);
    const admin = await gateway.operator.post('/api/webui/keys', { body: { name: 'census-admin', scope: 'admin', expires: null } });
    expect(admin.status, admin.text).toBe(200);

    // What the server reports: its document, and the prefixes its startup line names.
    const document = await clean(gateway, '127.0.0.1').get('/api/webui/openapi.json');
    expect(document.status).toBe(200);
    const documented = documentedEntries(document.json as never);
    const forwarding = await gateway.server.waitForLog((line) => line.msg === 'forwarding to the bot backend (webui.upstream)');
    const prefixes = forwarding['paths'] as string[];
    expect(prefixes).toEqual(FORWARDED);
    const forwarded: Entry[] = prefixes.flatMap((prefix) =>
      ['GET', 'POST', 'OPTIONS', 'DELETE'].map((method) => ({
        source: 'forwarded' as const,
        method,
        path: `${prefix}/census-probe`,
        isPublic: false,
        scope: methodScope(method),
      })),
    );
    const forwardedPublic: Entry[] = PUBLIC_FORWARDED.flatMap((path) =>
      ['GET', 'POST'].map((method) => ({ source: 'forwarded public' as const, method, path, isPublic: true, scope: undefined })),
    );
    // The Node server's fast paths, as its startup line names them (Bun, Deno and the bot's portable server have none).
    const fastPaths = nodeServer
      ? ((await gateway.server.waitForLog((line) => line.msg === 'Node fast paths in front of the app'))['fastPaths'] as string[])
      : [];
    if (nodeServer) expect(fastPaths).toEqual([`GET ${SESSION_CHECK_TARGET}`, 'GET forwarded', 'HEAD forwarded']);
    const fastPath: Entry[] = fastPaths.flatMap((named) => {
      const [method = '', what = ''] = named.split(' ');
      if (what !== 'forwarded')
        return [
          {
            source: 'fast path' as const,
            method,
            path: what,
            isPublic: what === SESSION_CHECK_TARGET,
            scope: what === SESSION_CHECK_TARGET ? undefined : methodScope(method),
          },
        ];
      return prefixes.map((prefix) => ({
        source: 'fast path' as const,
        method,
        path: `${prefix}/census-fast-path`,
        isPublic: false,
        scope: methodScope(method),
      }));
    });
    const ws = documented.find((entry) => entry.path === '/api/webui/ws');
    expect(ws, 'the document names the channel').toBeDefined();
    census = {
      gateway,
      upstream,
      readKey: String(created.json?.['key']),
      adminKey: String(admin.json?.['key']),
      http: [...documented.filter((entry) => entry !== ws), ...forwarded, ...forwardedPublic, ...fastPath],
      wsPath: ws!.path,
    };
    // The census is of something: the server's own routes, the bot's when it mounts some, and the fast path.
    const paths = census.http.map((entry) => entry.path);
    expect(paths).toEqual(expect.arrayContaining(['/api/webui/keys', '/api/webui/auth/forward', '/api/webui/health']));
    if (bot) expect(paths).toEqual(expect.arrayContaining(['/api/webui/config/bot', '/api/webui/system/version']));
  });

  /** Sends `entry`'s request with what a probe adds: its headers, and a body naming the credential for a state change. */
  function send(client: HttpClient, entry: Entry, headers: Record<string, string>, cookie: string | null, token?: string) {
    const body = STATE_CHANGES.has(entry.method) ? { body: { token: token ?? 'census' } } : {};
    return client.request(entry.method, entry.path, { headers, cookie, ...body });
  }

  /** Runs `probe` with the upstream's and the bot's records emptied, then proves nothing reached either. */
  async function reachingNothing(probe: () => Promise<void>): Promise<void> {
    const { upstream, gateway } = census;
    upstream.received.length = 0;
    upstream.channelMessages.length = 0;
    const actionsBefore = auditLines(gateway.server).filter((line) => line.event === 'bot_action').length;
    await probe();
    expect(upstream.received.map((recorded) => `${recorded.method} ${recorded.path}`)).toEqual([]);
    expect(upstream.channelMessages).toEqual([]);
    expect(auditLines(gateway.server).filter((line) => line.event === 'bot_action')).toHaveLength(actionsBefore);
  }

  it('enumerates the ways in from the running server', () => {
    const sources = new Map<string, number>();
    for (const entry of census.http) sources.set(entry.source, (sources.get(entry.source) ?? 0) + 1);
    expect(sources.get('openapi')).toBeGreaterThan(15);
    expect(sources.get('forwarded')).toBe(FORWARDED.length * 4);
    if (nodeServer) expect(sources.get('fast path')).toBe(1 + FORWARDED.length * 2);
  });

  it('no credential: every entry that is not public is refused, and nothing reaches a handler or the upstream', async () => {
    const stranger = clean(census.gateway, '127.0.0.60');
    await reachingNothing(async () => {
      for (const entry of census.http.filter((candidate) => !candidate.isPublic)) {
        const res = await send(stranger, entry, {}, null);
        expect(refused(res), label(entry, 'no credential', res)).toBe(true);
        if (res.status !== 200) expect(res.status, label(entry, 'no credential', res)).toBe(401);
      }
    });
  });

  it('a banned client presenting a credential gets 429 wherever one is compared; a public entry that compares none answers as to a stranger', async () => {
    const { gateway } = census;
    const banned = clean(gateway, '127.0.0.77');
    for (let n = 1; n <= 5; n++) await banned.post('/api/webui/auth/verify', { body: { token: `Census-Wrong_2026!${n}` } });
    const stranger = clean(gateway, '127.0.0.61');
    const credential = { authorization: `Bearer ${gateway.token}` };
    await reachingNothing(async () => {
      for (const entry of census.http.filter((candidate) => !candidate.isPublic)) {
        const res = await send(banned, entry, credential, `bot_session=${gateway.token}`, gateway.token);
        expect(res.status, label(entry, 'banned', res)).toBe(429);
      }
    });
    for (const entry of census.http.filter((candidate) => candidate.isPublic)) {
      const res = await send(banned, entry, credential, `bot_session=${gateway.token}`, gateway.token);
      if (res.status === 429) continue;
      const asStranger = await send(stranger, entry, {}, null);
      expect(res.status, label(entry, 'banned, not refused: answered as to a stranger?', res)).toBe(asStranger.status);
      expect(Object.keys(res.json ?? {}).sort(), label(entry, 'banned', res)).toEqual(Object.keys(asStranger.json ?? {}).sort());
    }
  });

  it('every entry that is not public names its scope, and a public one none (issue 45)', () => {
    for (const entry of census.http)
      expect(entry.scope === undefined, `${entry.source} ${entry.method} ${entry.path}`).toBe(entry.isPublic);
  });

  it('a read key is refused 403 wherever the scope is not read (a state change, a GET documented as admin), and reaches nothing', async () => {
    const reader = clean(census.gateway, '127.0.0.62');
    const changes = census.http.filter((entry) => entry.scope !== undefined && entry.scope !== 'read');
    if (bot) expect(changes.map((entry) => `${entry.method} ${entry.path}`)).toContain('PUT /api/webui/config/bot');
    await reachingNothing(async () => {
      for (const entry of changes) {
        const res = await send(reader, entry, { authorization: `Bearer ${census.readKey}` }, null);
        expect(res.status, label(entry, 'read key', res)).toBe(403);
        expect(res.json?.['code'], label(entry, 'read key', res)).toBe('insufficient_scope');
        expect(res.json?.['required'], label(entry, 'read key', res)).toBe('admin');
      }
    });
  });

  it('an admin key is refused 403 wherever the scope is access_token, naming it, and reaches nothing (issue 45)', async () => {
    const operator = clean(census.gateway, '127.0.0.66');
    const tokenOnly = census.http.filter((entry) => entry.scope === 'access_token');
    expect(tokenOnly.map((entry) => `${entry.method} ${entry.path}`)).toEqual(expect.arrayContaining(['POST /api/webui/keys']));
    await reachingNothing(async () => {
      for (const entry of tokenOnly) {
        const res = await send(operator, entry, { authorization: `Bearer ${census.adminKey}` }, null);
        expect(res.status, label(entry, 'admin key', res)).toBe(403);
        expect(res.json, label(entry, 'admin key', res)).toMatchObject({ code: 'insufficient_scope', required: 'access_token' });
      }
    });
  });

  it('a foreign Origin on a state change is refused 403 on every entry, public ones included, and reaches nothing', async () => {
    const { gateway } = census;
    const browser = clean(gateway, '127.0.0.63');
    const changes = census.http.filter((entry) => STATE_CHANGES.has(entry.method) || entry.method === 'OPTIONS');
    await reachingNothing(async () => {
      for (const entry of changes) {
        // OPTIONS with an Origin is a CORS preflight (answered by CORS, never forwarded); the rest carry the session cookie.
        const headers: Record<string, string> =
          entry.method === 'OPTIONS' ? { origin: FOREIGN_ORIGIN, 'access-control-request-method': 'POST' } : { origin: FOREIGN_ORIGIN };
        const res = await send(browser, entry, headers, `bot_session=${gateway.token}`, gateway.token);
        if (entry.method === 'OPTIONS') {
          expect(res.headers['access-control-allow-origin'], label(entry, 'foreign preflight', res)).toBeUndefined();
          continue;
        }
        expect(res.status, label(entry, 'foreign Origin', res)).toBe(403);
      }
    });
  });

  describe('the channel', () => {
    const wsOptions = (address: string, origin?: string) => ({ localAddress: address, ...(origin ? { headers: { origin } } : {}) });
    const serverOf = (): ServerProcess => census.gateway.server;

    async function ticketFor(address: string, bearer: string): Promise<string> {
      const res = await clean(census.gateway, address).get('/api/webui/ws-token', {
        headers: { authorization: `Bearer ${bearer}` },
        cookie: null,
      });
      expect(res.json, res.text).toMatchObject({ success: true });
      return String(res.json?.['token']);
    }

    it('the handshake: no ticket 401, a banned client 429, a foreign Origin 403; nothing reaches the upstream', async () => {
      await reachingNothing(async () => {
        for (const ticket of [undefined, 'census-not-a-ticket']) {
          const handshake = await connect(serverOf(), ticket, wsOptions('127.0.0.64'));
          expect(handshake, `${census.wsPath} with ticket ${ticket}`).toEqual({ opened: false, status: 401 });
        }
        const forBanned = await ticketFor('127.0.0.64', census.gateway.token);
        expect(await connect(serverOf(), forBanned, wsOptions('127.0.0.77'))).toEqual({ opened: false, status: 429 });
        const forForeign = await ticketFor('127.0.0.64', census.gateway.token);
        expect(await connect(serverOf(), forForeign, wsOptions('127.0.0.64', FOREIGN_ORIGIN))).toEqual({ opened: false, status: 403 });
      });
    });

    it('a refused handshake, a bogus ticket or a spent one, answers 401 with the error body over a raw socket (issue 45)', async () => {
      const address = '127.0.0.67';
      const spent = await ticketFor(address, census.gateway.token);
      const opened = await connect(serverOf(), spent, wsOptions(address));
      if (!opened.opened) throw new Error(`handshake refused with ${opened.status}`);
      opened.client.close();
      await reachingNothing(async () => {
        for (const ticket of ['census-not-a-ticket', spent]) {
          const head =
            `GET ${census.wsPath}?token=${encodeURIComponent(ticket)} HTTP/1.1\r\nHost: 127.0.0.1:${serverOf().port}\r\n` +
            'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
          const [answer, ...more] = parseRawResponses(await rawExchange(serverOf().port, head, '', address), false);
          expect(more).toEqual([]);
          expect(answer?.status, `${ticket === spent ? 'a spent' : 'a bogus'} ticket: ${answer?.body}`).toBe(401);
          expect(answer?.headers.get('content-type')).toMatch(/^application\/json/);
          expect(JSON.parse(answer?.body ?? '')).toEqual({ detail: expect.stringMatching(/ws-token/), code: 'unknown_ticket' });
        }
      });
    });

    it("every domain the server lists, and any other name (relayed): a read key's call is refused and reaches no handler or upstream", async () => {
      const handshake = await connect(serverOf(), await ticketFor('127.0.0.65', census.readKey), wsOptions('127.0.0.65'));
      if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
      const channel: WsClient = handshake.client;
      try {
        await channel.waitFor((message) => message['event'] === 'ready', 3_000, 'system/ready');
        // What the server reports: the domains and topics its unknown_topic answer lists.
        const listing = await channel.request({ op: 'subscribe', domain: 'logs', topic: 'census-no-such-topic', data: {} });
        expect(listing).toMatchObject({ ok: false, error: { code: 'unknown_topic' } });
        const available = /available: (.*)\.$/.exec(String((listing['error'] as { message: string }).message))?.[1] ?? '';
        const registered = [...new Set(available.split(', ').map((topic) => topic.split('/')[0]!))].filter((name) => name !== '');
        expect(registered).toContain('logs');
        if (bot) expect(registered).toContain('chat');
        const relayed = ['census_relayed', `census_${process.pid}`];
        await reachingNothing(async () => {
          for (const domain of registered) {
            const answer = await channel.request({ op: 'call', domain, method: 'census.change', data: {} });
            expect(answer, `call on the registered domain ${domain}`).toMatchObject({ ok: false });
            expect(['insufficient_scope', 'unknown_method']).toContain((answer['error'] as { code: string }).code);
          }
          for (const domain of relayed) {
            const answer = await channel.request({ op: 'call', domain, method: 'census.change', data: {} });
            expect(answer, `call on the relayed domain ${domain}`).toMatchObject({ ok: false, error: { code: 'insufficient_scope' } });
          }
        });
      } finally {
        channel.close();
      }
    });
  });
});
