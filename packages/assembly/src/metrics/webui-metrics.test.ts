import { StoreUnavailableError } from '@webui/core';
import { FakeClock, MemoryStore, storeConformanceCases } from '@webui/core/testing';
import { describe, expect, it } from 'vitest';
import { WebuiMetrics } from './webui-metrics.js';

/** The value of one series in a Prometheus text answer, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const scrapeText = async (metrics: WebuiMetrics) => (await metrics.scrape()).body;

describe('the observed store passes the shared Store conformance suite, timing every operation', () => {
  for (const testCase of storeConformanceCases(async () => {
    const clock = new FakeClock();
    const store = new WebuiMetrics().observe(new MemoryStore(clock), true);
    return { store, clock, clients: async (count) => Array.from({ length: count }, () => store) };
  })) {
    it(testCase.name, testCase.run);
  }
});

describe('WebuiMetrics', () => {
  it('counts logins by outcome and how, and bans, from the security events; two instances in one process keep their own', async () => {
    const metrics = new WebuiMetrics();
    const other = new WebuiMetrics();
    metrics.securityEvents.record({ event: 'login_succeeded', address: '203.0.113.7', via: 'api', how: 'verify' });
    metrics.securityEvents.record({ event: 'login_failed', address: '203.0.113.7', via: 'api', how: 'bearer', counted: true });
    metrics.securityEvents.record({
      event: 'login_failed',
      address: '203.0.113.7',
      via: 'api',
      how: 'cookie',
      counted: false,
      reason: 'stale_session',
    });
    metrics.securityEvents.record({ event: 'ban_started', address: '203.0.113.7', via: 'api', how: 'verify', retry_after: 600 });
    const text = await scrapeText(metrics);
    expect(sample(text, 'webui_logins_total{outcome="succeeded",how="verify"}')).toBe(1);
    expect(sample(text, 'webui_logins_total{outcome="failed",how="bearer"}')).toBe(1);
    expect(sample(text, 'webui_logins_total{outcome="failed_not_counted",how="cookie"}')).toBe(1);
    expect(sample(text, 'webui_logins_total{outcome="failed",how="verify"}')).toBe(0);
    expect(sample(text, 'webui_bans_started_total{how="verify"}')).toBe(1);
    expect(text).not.toContain('203.0.113.7');
    expect(sample(await scrapeText(other), 'webui_logins_total{outcome="succeeded",how="verify"}')).toBe(0);
  });

  it("times a shared store's operations, counts the ones it could not reach, and counts tickets issued and redeemed", async () => {
    const metrics = new WebuiMetrics();
    const clock = new FakeClock();
    const memory = new MemoryStore(clock);
    // Redis gone, as a shared store reports it: the read is refused.
    memory.attempts.readClient = () => Promise.reject(new StoreUnavailableError('redis is gone'));
    // One that throws instead of rejecting: its caller still gets a rejected promise, timed and counted alike.
    memory.budget.readGlobalFailures = () => {
      throw new StoreUnavailableError('redis is gone');
    };
    const store = metrics.observe(memory, true);
    const thrown = store.budget.readGlobalFailures(0);
    expect(thrown).toBeInstanceOf(Promise);
    await expect(thrown).rejects.toBeInstanceOf(StoreUnavailableError);
    await store.tickets.putTicket('t1', { sessionToken: 's', expiresAt: clock.now() + 60_000 });
    expect(await store.tickets.consumeTicket('t1')).not.toBeNull();
    expect(await store.tickets.consumeTicket('t1')).toBeNull();
    await expect(store.attempts.readClient('203.0.113.7')).rejects.toBeInstanceOf(StoreUnavailableError);
    const text = await scrapeText(metrics);
    expect(sample(text, 'webui_ws_tickets_issued_total')).toBe(1);
    expect(sample(text, 'webui_ws_tickets_redeemed_total')).toBe(1);
    expect(sample(text, 'webui_store_operation_seconds_count{operation="consumeTicket"}')).toBe(2);
    expect(sample(text, 'webui_store_operation_failures_total{operation="readClient"}')).toBe(1);
    expect(sample(text, 'webui_store_operation_failures_total{operation="readGlobalFailures"}')).toBe(1);
    expect(sample(text, 'webui_store_operation_seconds_count{operation="readGlobalFailures"}')).toBe(1);
    // The record's read is memory on every store (Redis serves its last known copy): never timed.
    await store.record.readRecord();
    expect(await scrapeText(metrics)).not.toContain('operation="readRecord"');
  });

  it('times only the record writes of a store in this process', async () => {
    const metrics = new WebuiMetrics();
    const store = metrics.observe(new MemoryStore(new FakeClock()), false);
    await store.record.readRecord();
    await store.attempts.readClient('203.0.113.7');
    const text = await scrapeText(metrics);
    expect(text).not.toContain('operation="readRecord"');
    expect(text).not.toContain('operation="readClient"');
  });

  it('counts forwarded requests by the upstream status, and those that got no answer as "error"', async () => {
    const metrics = new WebuiMetrics();
    let status = 200;
    const client = metrics.countUpstream(() => ({
      transport: async () => (status === 0 ? Promise.reject(new TypeError('fetch failed')) : new Response(null, { status })),
      openSocket: () => {
        throw new Error('not used');
      },
    }))({ origin: 'http://127.0.0.1:8002' });
    await client.transport(new Request('http://127.0.0.1:8002/api/chat'));
    status = 503;
    await client.transport(new Request('http://127.0.0.1:8002/api/chat'));
    status = 0;
    await expect(client.transport(new Request('http://127.0.0.1:8002/api/chat'))).rejects.toThrow('fetch failed');
    // Node's speed-up sends from a request's parts: counted the same.
    const parts = metrics.countUpstream(() => ({
      transport: async () => new Response(null),
      send: async () => ({ status: 201, statusText: 'Created', headers: new Headers(), body: null }),
      openSocket: () => {
        throw new Error('not used');
      },
    }))({ origin: 'http://127.0.0.1:8002' });
    await parts.send?.({
      url: 'http://127.0.0.1:8002/api/chat',
      method: 'POST',
      headers: new Headers(),
      body: null,
      signal: new AbortController().signal,
    });
    const text = await scrapeText(metrics);
    expect(sample(text, 'webui_upstream_requests_total{code="201"}')).toBe(1);
    expect(sample(text, 'webui_upstream_requests_total{code="200"}')).toBe(1);
    expect(sample(text, 'webui_upstream_requests_total{code="503"}')).toBe(1);
    expect(sample(text, 'webui_upstream_requests_total{code="error"}')).toBe(1);
  });

  it('reads the hub, the bans, the budget and the store at the scrape', async () => {
    const metrics = new WebuiMetrics();
    metrics.watch({
      hub: {
        size: 3,
        subscriptionCounts: () => ({ logs: 2, security: 1 }),
        capCounts: () => ({ sendBufferFull: 4, requestFlood: 5, rateLimited: 6 }),
      },
      bans: {
        countBanned: async () => 1,
        budget: async () => ({ limit: 100, failures: 140, state: 'delayed', delayMs: 500, retryAfterSeconds: null }),
      },
      storeAvailable: () => false,
    });
    const text = await scrapeText(metrics);
    expect(sample(text, 'webui_websocket_connections')).toBe(3);
    expect(sample(text, 'webui_websocket_subscriptions{domain="logs"}')).toBe(2);
    expect(sample(text, 'webui_websocket_closed_total{reason="send_buffer_full"}')).toBe(4);
    expect(sample(text, 'webui_websocket_closed_total{reason="request_flood"}')).toBe(5);
    expect(sample(text, 'webui_websocket_rate_limited_total')).toBe(6);
    expect(sample(text, 'webui_bans_active')).toBe(1);
    expect(sample(text, 'webui_global_failure_budget_failures')).toBe(140);
    expect(sample(text, 'webui_global_failure_budget_state{state="delayed"}')).toBe(1);
    expect(sample(text, 'webui_global_failure_budget_state{state="open"}')).toBe(0);
    expect(sample(text, 'webui_store_available')).toBe(0);
  });
});
