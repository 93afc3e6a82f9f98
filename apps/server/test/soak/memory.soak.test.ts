import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';

// Every failure comes from a fresh address, as a botnet's would: the global budget is set past the test's
// volume so that each one reaches the per-address records this test measures, through the budget's own
// bookkeeping (its holds and buckets), instead of being slowed down at the 101st.
const MEMORY_TEST_CONFIG = '[webui]\ntrusted_proxies = ["127.0.0.1"]\nglobal_failure_budget = 1000000\n';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * docs/decisions/0014-bounded-memory.md, measured on the real Node process: a flood of failed verifications from distinct
 * addresses (through a trusted proxy hop) and a flood of /ws-token calls from one session leave
 * its resident memory bounded, and bans keep working.
 *
 * A soak proof: `npm run test:soak` runs this file (vitest project `soak`, WEBUI_SOAK=1) twice, with
 * 50,000 addresses (the growth held to their share of the budget) and the full 200,000 under 150 MB
 * (WEBUI_MEMORY_ADDRESSES); `npm test` leaves it out.
 */

afterAll(cleanupServers);

const ADDRESSES = Number(process.env['WEBUI_MEMORY_ADDRESSES'] ?? 50_000);
const TICKETS = Number(process.env['WEBUI_MEMORY_TICKETS'] ?? 100_000);
const LIMIT_MB = 150;
// packages/core MemoryStore keeps at most this many client records (docs/decisions/0014-bounded-memory.md).
const ATTEMPT_KEYS_CAP = 100_000;
// The budget over an idle server (~70 MB): a fixed headroom for the garbage of a flood of requests, the
// rest for the records, which grow with the addresses up to the cap.
const IDLE_MB = 70;
const GARBAGE_HEADROOM_MB = 20;
// Where the dashboard's session comes from: it logs in before any flood, as an operator's browser does.
const SESSION_ADDRESS = '198.51.100.20';

interface AutocannonResult {
  requests: { total: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** Runs `load`, sampling the server's RSS every 250 ms; returns the peak and the value at the end. */
async function measured<T>(pid: number, load: () => Promise<T>): Promise<{ result: T; peakMb: number; endMb: number }> {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(pid));
  }, 250);
  try {
    const result = await load();
    const endMb = rssMb(pid);
    return { result, peakMb: Math.max(peakMb, endMb), endMb };
  } finally {
    clearInterval(sampler);
  }
}

/** The n-th distinct IPv4 address of 10.0.0.0/8, never 10.0.0.0 itself. */
const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

describe(`bounded memory (docs/decisions/0014-bounded-memory.md): ${ADDRESSES} addresses, ${TICKETS} tickets`, () => {
  let server: ServerProcess;
  let token: string;
  let idleMb: number;

  beforeAll(async () => {
    // The default log level: every failed verification writes its log line, as in production.
    server = await startServer({ args: ['--host', '127.0.0.1'], config: MEMORY_TEST_CONFIG });
    token = readWebuiFile(server.dataDir).access_token;
    idleMb = rssMb(server.pid);
    // A client with a recent login is never turned away, not even while a flood keeps the failure counts full.
    const login = await new HttpClient(server.baseUrl).post('/auth/verify', {
      body: { token },
      headers: { 'x-forwarded-for': SESSION_ADDRESS },
    });
    expect(login.json).toMatchObject({ valid: true });
  });

  it(`failed verifications from ${ADDRESSES} distinct addresses keep RSS bounded, and bans still work`, { timeout: 300_000 }, async () => {
    let sent = 0;
    const started = performance.now();
    const { result, peakMb, endMb } = await measured(server.pid, () =>
      autocannon({
        url: server.baseUrl,
        connections: 16,
        pipelining: 8,
        amount: ADDRESSES,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: '/api/webui/auth/verify',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ token: 'not-the-token-at-all' }),
            setupRequest: (request: { headers: Record<string, string> }) => {
              sent += 1;
              return { ...request, headers: { ...request.headers, 'x-forwarded-for': addressOf(sent) } };
            },
          },
        ],
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.info(
      `memory: ${result.requests.total} failed verifications from ${sent} addresses in ${seconds.toFixed(1)} s; RSS idle ` +
        `${idleMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB, end ${endMb.toFixed(0)} MB`,
    );

    // One failure per address: every answer is the ordinary 200 {valid:false}, none a ban, none lost; past the cap's worth
    // of addresses in the window, a new address is turned away (429) before its guess is checked: no ban is ever evicted.
    expect(Object.keys(result.statusCodeStats)).toEqual(ADDRESSES > ATTEMPT_KEYS_CAP ? ['200', '429'] : ['200']);
    expect(result.errors + result.timeouts).toBe(0);
    expect(result.requests.total).toBeGreaterThanOrEqual(ADDRESSES * 0.99);

    expect(endMb).toBeLessThan(LIMIT_MB);
    expect(peakMb).toBeLessThan(LIMIT_MB);
    // Scaled down, the records may take only their share of what the cap may take.
    const share = Math.min(ADDRESSES, ATTEMPT_KEYS_CAP) / ATTEMPT_KEYS_CAP;
    expect(endMb - idleMb).toBeLessThan(GARBAGE_HEADROOM_MB + (LIMIT_MB - IDLE_MB - GARBAGE_HEADROOM_MB) * share);

    const proxy = new HttpClient(server.baseUrl);
    const from = (address: string) => ({ 'x-forwarded-for': address });
    if (ADDRESSES > ATTEMPT_KEYS_CAP) {
      // The counts are full: a new address is refused even with the right token, until counts leave the window.
      expect((await proxy.post('/auth/verify', { body: { token }, headers: from('198.51.100.8') })).status).toBe(429);
      return;
    }
    // Still banning: a new address is banned at its 5th failure, even for the right token then.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await proxy.post('/auth/verify', { body: { token: `guess-${i}` }, headers: from('198.51.100.7') })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await proxy.post('/auth/verify', { body: { token }, headers: from('198.51.100.7') })).status).toBe(429);
    // ...and everyone else still gets in.
    expect((await proxy.post('/auth/verify', { body: { token }, headers: from('198.51.100.8') })).json).toMatchObject({ valid: true });
  });

  it(
    `${TICKETS} /ws-token calls from one session keep RSS under ${LIMIT_MB} MB, and the newest ticket still opens a socket`,
    { timeout: 300_000 },
    async () => {
      const beforeMb = rssMb(server.pid);
      const started = performance.now();
      const { result, peakMb, endMb } = await measured(server.pid, () =>
        autocannon({
          url: `${server.baseUrl}/api/webui/ws-token`,
          headers: { cookie: `bot_session=${encodeURIComponent(token)}`, 'x-forwarded-for': SESSION_ADDRESS },
          connections: 16,
          pipelining: 8,
          amount: TICKETS,
          timeout: 30,
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      console.info(
        `memory: ${result.requests.total} /ws-token calls in ${seconds.toFixed(1)} s; RSS before ${beforeMb.toFixed(0)} MB, peak ` +
          `${peakMb.toFixed(0)} MB, end ${endMb.toFixed(0)} MB`,
      );

      expect(Object.keys(result.statusCodeStats)).toEqual(['200']);
      expect(result.errors + result.timeouts).toBe(0);
      expect(result.requests.total).toBeGreaterThanOrEqual(TICKETS * 0.99);
      expect(endMb).toBeLessThan(LIMIT_MB);
      expect(peakMb).toBeLessThan(LIMIT_MB);
      // A session holds at most 256 tickets: the flood leaves nothing behind but garbage, which must not pile up.
      expect(endMb - beforeMb).toBeLessThan(GARBAGE_HEADROOM_MB);

      const ticket = await new HttpClient(server.baseUrl).get('/ws-token', {
        cookie: `bot_session=${encodeURIComponent(token)}`,
        headers: { 'x-forwarded-for': SESSION_ADDRESS },
      });
      expect(ticket.json).toMatchObject({ success: true, expires_in: 60 });
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api/webui/ws?token=${String(ticket.json?.['token'])}`);
      const first = await new Promise<string>((resolve, reject) => {
        socket.once('message', (data) => resolve(String(data)));
        socket.once('error', reject);
      });
      expect(JSON.parse(first)).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
      socket.close();
    },
  );
});
