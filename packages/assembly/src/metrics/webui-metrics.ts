import type { BanPolicy, BudgetState, Store } from '@webui/core';
import type { SocketCapCounts } from '@webui/http-hono';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { countedUpstreamClient, UpstreamCounts, webUpstreamClient, type UpstreamClientFactory } from '@webui/gateway';
import { observedStore } from './observed-store.js';
import { CREDENTIAL_HOWS, LOGIN_OUTCOMES, SecurityEventCounts } from './security-event-counts.js';

/** What the gauges read at a scrape, known once the server is assembled. */
export interface MetricsSources {
  /** The WebSocket hub: open connections, and subscriptions by domain. */
  hub: { readonly size: number; subscriptionCounts(): Record<string, number>; capCounts(): Readonly<SocketCapCounts> };
  bans: Pick<BanPolicy, 'countBanned' | 'budget'>;
  storeAvailable(): boolean;
}

/** The Prometheus text a scrape answers. */
export interface MetricsScrape {
  contentType: string;
  body: string;
}

// From a memory read to a slow Redis: 100 µs to 2.5 s.
const STORE_SECONDS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BUDGET_STATES = ['off', 'open', 'delayed', 'throttled'] as const;

/**
 * The server's metrics in the Prometheus text format (prom-client). What a request does is counted as plain numbers (a
 * security event, a forward, a ticket) or timed by the store wrapper; everything else is read at the scrape, so serving
 * requests costs an increment. No label carries an address, a key name or a secret.
 */
export class WebuiMetrics {
  readonly registry = new Registry();
  /** Counts logins, failures and bans: one more sink of the assembly's security events. */
  readonly securityEvents = new SecurityEventCounts();
  private readonly upstream = new UpstreamCounts();
  private ticketsIssued = 0;
  private ticketsRedeemed = 0;
  private sources: MetricsSources | undefined;
  /** What the store says at this scrape, read once before the registry collects (it collects every metric at once). */
  private read: { bansActive: number; budget: BudgetState } | undefined;
  private readonly storeSeconds: Histogram<'operation'>;
  private readonly storeFailures: Counter<'operation'>;

  constructor() {
    const registers = [this.registry];
    const events = this.securityEvents;
    const metrics = this;
    new Counter({
      name: 'webui_logins_total',
      help: 'Logins by outcome (succeeded; failed and counted toward a ban; failed_not_counted: a stale session, an exempt address, an expired key) and by how the secret came',
      labelNames: ['outcome', 'how'],
      registers,
      collect() {
        this.reset();
        for (const outcome of LOGIN_OUTCOMES) for (const how of CREDENTIAL_HOWS) this.inc({ outcome, how }, events.logins[outcome][how]);
      },
    });
    new Counter({
      name: 'webui_bans_started_total',
      help: 'Bans started, by how the failure that started them came',
      labelNames: ['how'],
      registers,
      collect() {
        this.reset();
        for (const how of CREDENTIAL_HOWS) this.inc({ how }, events.bansStarted[how]);
      },
    });
    new Gauge({
      name: 'webui_bans_active',
      help: 'Client addresses (IPv6 per /64) banned right now',
      registers,
      collect() {
        this.set(metrics.read ? metrics.read.bansActive : Number.NaN);
      },
    });
    new Gauge({
      name: 'webui_global_failure_budget_failures',
      help: 'Failed logins from all addresses in the last hour, against webui.global_failure_budget',
      registers,
      collect() {
        this.set(metrics.read ? metrics.read.budget.failures : Number.NaN);
      },
    });
    new Gauge({
      name: 'webui_global_failure_budget_limit',
      help: 'webui.global_failure_budget (0: off)',
      registers,
      collect() {
        this.set(metrics.read ? metrics.read.budget.limit : Number.NaN);
      },
    });
    new Gauge({
      name: 'webui_global_failure_budget_state',
      help: 'What a new client meets now: 1 for the current state (off, open, delayed, throttled), 0 for the others',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        if (metrics.read) for (const state of BUDGET_STATES) this.set({ state }, metrics.read.budget.state === state ? 1 : 0);
      },
    });
    new Gauge({
      name: 'webui_websocket_connections',
      help: 'Open WebSocket connections',
      registers,
      collect() {
        if (metrics.sources) this.set(metrics.sources.hub.size);
      },
    });
    new Gauge({
      name: 'webui_websocket_subscriptions',
      help: 'Open subscriptions by channel domain',
      labelNames: ['domain'],
      registers,
      collect() {
        if (!metrics.sources) return;
        this.reset();
        for (const [domain, count] of Object.entries(metrics.sources.hub.subscriptionCounts())) this.set({ domain }, count);
      },
    });
    new Counter({
      name: 'webui_websocket_closed_total',
      help: 'WebSockets this server closed at a cap, by reason (send_buffer_full: 1013, more than 1 MiB unsent; request_flood: 1008, far past the subscribe rate)',
      labelNames: ['reason'],
      registers,
      collect() {
        if (!metrics.sources) return;
        this.reset();
        const counts = metrics.sources.hub.capCounts();
        this.inc({ reason: 'send_buffer_full' }, counts.sendBufferFull);
        this.inc({ reason: 'request_flood' }, counts.requestFlood);
      },
    });
    new Counter({
      name: 'webui_websocket_rate_limited_total',
      help: 'WebSocket subscribes and unsubscribes answered rate_limited (past the subscribe rate of their socket)',
      registers,
      collect() {
        if (!metrics.sources) return;
        this.reset();
        this.inc(metrics.sources.hub.capCounts().rateLimited);
      },
    });
    new Counter({
      name: 'webui_ws_tickets_issued_total',
      help: 'WebSocket tickets issued (GET /ws-token)',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.ticketsIssued);
      },
    });
    new Counter({
      name: 'webui_ws_tickets_redeemed_total',
      help: 'WebSocket tickets redeemed by a handshake',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.ticketsRedeemed);
      },
    });
    this.storeSeconds = new Histogram({
      name: 'webui_store_operation_seconds',
      help: 'Store operations by name: every one on a shared store (Redis), the record writes on the file store',
      labelNames: ['operation'],
      buckets: STORE_SECONDS_BUCKETS,
      registers,
    });
    this.storeFailures = new Counter({
      name: 'webui_store_operation_failures_total',
      help: 'Store operations that failed because the store could not be reached, by name',
      labelNames: ['operation'],
      registers,
    });
    new Gauge({
      name: 'webui_store_available',
      help: 'Whether the store answers right now (1) or not (0: logins and changes answer 503)',
      registers,
      collect() {
        if (metrics.sources) this.set(metrics.sources.storeAvailable() ? 1 : 0);
      },
    });
    new Counter({
      name: 'webui_upstream_requests_total',
      help: 'Requests forwarded to webui.upstream, by the status it answered ("error": no answer)',
      labelNames: ['code'],
      registers,
      collect() {
        this.reset();
        for (const [code, count] of metrics.upstream.entries()) this.inc({ code }, count);
      },
    });
  }

  /** The store, timed and its tickets counted; `shared`: a store across the network, every operation timed. */
  observe(store: Store, shared: boolean): Store {
    return observedStore(
      store,
      {
        timer: (operation) => {
          const child = this.storeSeconds.labels({ operation });
          return (seconds) => child.observe(seconds);
        },
        failed: (operation) => this.storeFailures.inc({ operation }),
        ticketIssued: () => void this.ticketsIssued++,
        ticketRedeemed: () => void this.ticketsRedeemed++,
      },
      shared,
    );
  }

  /** The runtime's upstream client (the web one when it has none of its own), each forward counted by status. */
  countUpstream(clientFor: UpstreamClientFactory = webUpstreamClient): UpstreamClientFactory {
    return countedUpstreamClient(clientFor, this.upstream);
  }

  /** With [webui.tls]: the served certificate's end, read at each scrape, so a reload shows at once (docs/https.md's alert). */
  watchCertificate(notAfter: () => Date): void {
    new Gauge({
      name: 'webui_tls_certificate_expiry_timestamp_seconds',
      help: 'When the certificate this server serves over HTTPS expires, in Unix seconds',
      registers: [this.registry],
      collect() {
        this.set(Math.floor(notAfter().getTime() / 1000));
      },
    });
  }

  /** On a runtime that caps the connections each client holds (Node): their counter, and the function counting one refused. */
  countRefusedConnections(): () => void {
    const counter = new Counter({
      name: 'webui_connections_refused_total',
      help: 'TCP connections closed on arrival: their client address already held webui.max_connections_per_client',
      registers: [this.registry],
    });
    return () => counter.inc();
  }

  /** Where the gauges read from, once the server is assembled. */
  watch(sources: MetricsSources): void {
    this.sources = sources;
  }

  async scrape(): Promise<MetricsScrape> {
    // What a store that cannot answer does not say is NaN (the state's series are left out): webui_store_available says why.
    this.read = this.sources ? await readStoreGauges(this.sources).catch(() => undefined) : undefined;
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

async function readStoreGauges({ bans }: MetricsSources): Promise<{ bansActive: number; budget: BudgetState }> {
  // A count, not list(): a scrape during a flood must not build and sort up to the cap's worth of entries.
  const [bansActive, budget] = await Promise.all([bans.countBanned(), bans.budget()]);
  return { bansActive, budget };
}
