import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient, type HttpResponse } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

afterAll(cleanupServers);

const BUDGET = 100;
/** The longest a verification is held back while the budget is spent. */
const MAX_DELAY_MS = 5_000;
/** The first delay past the budget. */
const FIRST_DELAY_MS = 100;
const CONCURRENCY = 25;
const HOUR_S = 3_600;

interface Timed {
  address: string;
  response: HttpResponse;
  ms: number;
}

/** Runs `task` over `items`, at most `limit` at a time; results in the items' order. */
async function inPool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** 127.1.x.y, distinct for every n in 0..65024. */
const floodAddress = (n: number) => `127.1.${Math.floor(n / 254)}.${(n % 254) + 1}`;

function expectServerThrottle(response: HttpResponse): number {
  expectErrorBody(response, 429, 'too_many_attempts');
  expect(response.json?.['detail']).toMatch(/server/);
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(response.json?.['retry_after']).toBe(retryAfter);
  return retryAfter;
}

/**
 * Many addresses, one token (issue 18 part 3): 300 distinct 127.1.x.y addresses each guess once, far
 * below any per-address ban. Past the budget of 100 failures an hour, new clients are held back
 * (100 ms, doubling, at most 5 s); past twice the budget they are turned away with 429 and Retry-After.
 * Exempt addresses and addresses that logged in before are never locked out.
 */
describe('global_failure_budget (default 100) against guesses from 300 addresses', () => {
  let server: ServerProcess;
  let token: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });

  async function guess(address: string): Promise<Timed> {
    const started = performance.now();
    const response = await from(address).post('/auth/verify', { body: { token: `botnet-guess-${address}` }, cookie: null });
    return { address, response, ms: performance.now() - started };
  }

  const withinBudget: Timed[] = [];
  const beyondBudget: Timed[] = [];

  beforeAll(async () => {
    server = await startServer({ config: ['[webui]', 'ban_exempt = ["127.0.0.200"]', ''].join('\n') });
    token = readWebuiFile(server.dataDir).access_token;
    // Logged in before the flood: a recent success keeps the door open for this address.
    const before = await from('127.0.0.201').post('/auth/verify', { body: { token } });
    expect(before.json).toMatchObject({ valid: true });

    const addresses = Array.from({ length: 300 }, (_, n) => floodAddress(n));
    withinBudget.push(...(await inPool(addresses.slice(0, BUDGET), CONCURRENCY, guess)));
    beyondBudget.push(...(await inPool(addresses.slice(BUDGET), CONCURRENCY, guess)));
  }, 120_000);

  it('the first 100 failures are answered normally (200 valid:false), none held anywhere near the delay cap', () => {
    expect(new Set([...withinBudget, ...beyondBudget].map((entry) => entry.address)).size).toBe(300);
    for (const { response, ms } of withinBudget) {
      expect(response.status, response.text).toBe(200);
      expect(response.json).toMatchObject({ valid: false });
      // One guess per address: no address is near its own ban.
      expect(response.json).not.toHaveProperty('remaining_attempts');
      expect(ms).toBeLessThan(MAX_DELAY_MS / 2);
    }
  });

  it(
    'beyond the budget: every admitted guess waits at least 100 ms, the later ones the full 5 s; at most 200 failures are ' +
      'admitted in all',
    () => {
      const admitted = beyondBudget.filter((entry) => entry.response.status === 200);
      const throttled = beyondBudget.filter((entry) => entry.response.status === 429);
      expect(admitted.length + throttled.length, 'every answer is 200 or 429').toBe(beyondBudget.length);
      for (const { response } of admitted) expect(response.json).toMatchObject({ valid: false });
      // With 25 in flight at once, at most 24 others can push a guess past twice the budget early.
      expect(admitted.length).toBeGreaterThanOrEqual(BUDGET - CONCURRENCY);
      expect(admitted.length).toBeLessThanOrEqual(BUDGET);
      // Lower bounds only: a delay can make an answer late, never early (1 ms for timer rounding).
      for (const { ms } of admitted) expect(ms).toBeGreaterThanOrEqual(FIRST_DELAY_MS - 1);
      expect(Math.max(...admitted.map((entry) => entry.ms))).toBeGreaterThanOrEqual(MAX_DELAY_MS - 1);
    },
  );

  it('past twice the budget guesses are answered 429 too_many_attempts with Retry-After, naming the server, not the address', () => {
    const throttled = beyondBudget.filter((entry) => entry.response.status === 429);
    expect(throttled.length).toBeGreaterThanOrEqual(BUDGET);
    for (const { response } of throttled) {
      const retryAfter = expectServerThrottle(response);
      // The failures leave the hour's window about an hour after the flood began.
      expect(retryAfter).toBeGreaterThan(HOUR_S - 10 * 60);
      expect(retryAfter).toBeLessThanOrEqual(HOUR_S);
      expect(response.json?.['detail']).not.toMatch(/this address/);
      expect(response.json).toMatchObject({ valid: false });
    }
  });

  it('a fresh non-exempt address that never logged in is turned away even with the right token', async () => {
    const response = await from('127.2.0.1').post('/auth/verify', { body: { token }, cookie: null });
    expectServerThrottle(response);
    expect(response.setCookie).toEqual([]);
  });

  it('the exempt 127.0.0.200 logs in with the right token at once', async () => {
    const started = performance.now();
    const response = await from('127.0.0.200').post('/auth/verify', { body: { token } });
    const ms = performance.now() - started;
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ valid: true });
    expect(response.setCookie.some((line) => line.startsWith('bot_session='))).toBe(true);
    // Not held back: far from the 5 s a spent budget costs the others.
    expect(ms).toBeLessThan(MAX_DELAY_MS / 2);
  });

  it('127.0.0.201, which logged in before the flood, still logs in at once', async () => {
    const started = performance.now();
    const response = await from('127.0.0.201').post('/auth/verify', { body: { token } });
    const ms = performance.now() - started;
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ valid: true });
    expect(ms).toBeLessThan(MAX_DELAY_MS / 2);
  });

  it('no address was banned by the flood: one guess each is far below a ban', async () => {
    const operator = from('127.0.0.200');
    expect((await operator.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
    const response = await operator.get('/security/bans');
    expect(response.status, response.text).toBe(200);
    const bans = response.json?.['bans'] as Array<{ key: string; failures: number; banned_until: string | null }>;
    expect(bans.filter((entry) => entry.banned_until !== null)).toEqual([]);
    // Every admitted guess counted once for its own address; the turned-away ones not at all.
    const admitted = [...withinBudget, ...beyondBudget].filter((entry) => entry.response.status === 200).map((entry) => entry.address);
    expect(bans.map((entry) => entry.key).sort()).toEqual([...admitted].sort());
    for (const entry of bans) expect(entry.failures).toBe(1);
  });
});
