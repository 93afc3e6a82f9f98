import { type BanPolicyOptions, type SecurityEvent, type SecurityEventSink } from '@webui/core';
import { createCoreHarness } from '@webui/core/testing';
import type { Context } from 'hono';
import { expect } from 'vitest';
import type { AppLogger, HttpPolicy } from '../app-env.js';
import { API_PREFIX, createWebuiApp } from '../app.js';
import type { RuntimePort } from '../runtime-port.js';
import type { Feature } from '../feature.js';
import type { MetricsScrape } from '../features/metrics/metrics-routes.js';
import { testPolicy, type TestPolicyOptions } from './test-policy.js';

/** What a test puts into `c.env` to play the connection: the TCP peer and whether it is TLS. */
export interface TestBindings {
  peer?: string;
  tls?: boolean;
}

export interface LogCall {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: object;
  message: string;
}

/** A logger that keeps every call, so tests can assert what was (never) logged. */
export class RecordingLogger implements AppLogger {
  readonly calls: LogCall[] = [];
  /** False plays a logger at level info: the app then skips assembling debug lines. */
  constructor(private readonly debugEnabled = true) {}
  isLevelEnabled(level: 'debug'): boolean {
    return level !== 'debug' || this.debugEnabled;
  }
  debug(fields: object, message: string): void {
    this.calls.push({ level: 'debug', fields, message });
  }
  info(fields: object, message: string): void {
    this.calls.push({ level: 'info', fields, message });
  }
  warn(fields: object, message: string): void {
    this.calls.push({ level: 'warn', fields, message });
  }
  error(fields: object, message: string): void {
    this.calls.push({ level: 'error', fields, message });
  }
  /** Everything logged, as one searchable text. */
  text(): string {
    return JSON.stringify(this.calls);
  }
  at(level: LogCall['level']): LogCall[] {
    return this.calls.filter((call) => call.level === level);
  }
}

/** An audit sink that keeps every event, so tests can assert what was (never) audited. */
export class RecordingAudit implements SecurityEventSink {
  readonly events: SecurityEvent[] = [];
  record(event: SecurityEvent): void {
    this.events.push(event);
  }
  named<N extends SecurityEvent['event']>(name: N): Array<Extract<SecurityEvent, { event: N }>> {
    return this.events.filter((event): event is Extract<SecurityEvent, { event: N }> => event.event === name);
  }
}

export const DEFAULT_PEER = '127.0.0.5';
export const DEFAULT_HOST = '127.0.0.1:8001';
export { cidrs, LISTEN_ORIGIN, testPolicy, type TestPolicyOptions } from './test-policy.js';

export interface TestRequest {
  method?: string;
  /** Sent as JSON with Content-Type: application/json. */
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** The bot_session cookie value exactly as it goes on the wire. */
  cookie?: string;
  /** Sent as `Authorization: Bearer <bearer>`. */
  bearer?: string;
  /** TCP peer address; DEFAULT_PEER unless given. */
  peer?: string;
  tls?: boolean;
  /** Host header; DEFAULT_HOST unless given, none when null. */
  host?: string | null;
}

// A web-standard runtime like Bun's or Deno's: Hono's conninfo shape, no speed-ups.
const testRuntime: RuntimePort = {
  getConnInfo: (c: Context) => ({ remote: { address: (c.env as TestBindings | undefined)?.peer } }),
  isTls: (c: Context) => (c.env as TestBindings | undefined)?.tls === true,
};

/** The app over a fresh core harness, with a bootstrapped temporary token and a recording logger. */
export async function createTestApp(
  options: {
    policy?: TestPolicyOptions;
    features?: readonly Feature[];
    logger?: RecordingLogger;
    banPolicy?: Partial<BanPolicyOptions>;
    storeAvailable?: () => boolean;
    audit?: RecordingAudit;
    metrics?: MetricsScrape;
  } = {},
) {
  const harness = createCoreHarness(options.banPolicy ? { banPolicy: options.banPolicy } : {});
  const boot = await harness.tokens.bootstrap();
  if (!boot.temporaryToken) throw new Error('bootstrap gave no temporary token');
  const logger = options.logger ?? new RecordingLogger();
  const audit = options.audit ?? new RecordingAudit();
  const policy = testPolicy(options.policy);
  const app = createWebuiApp({
    services: harness,
    policy,
    runtime: testRuntime,
    logger,
    now: () => harness.clock.now(),
    audit,
    ...(options.features ? { features: options.features } : {}),
    ...(options.storeAvailable ? { storeAvailable: options.storeAvailable } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });

  /** A request to `path` (under /api/webui unless it starts with //, which means "from the root"). */
  const request = (path: string, init: TestRequest = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.host !== null && !headers.has('host')) headers.set('host', init.host ?? DEFAULT_HOST);
    if (init.cookie !== undefined) headers.set('cookie', `bot_session=${init.cookie}`);
    if (init.bearer !== undefined) headers.set('authorization', `Bearer ${init.bearer}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const url = path.startsWith('//') ? `http://127.0.0.1:8001${path.slice(1)}` : `http://127.0.0.1:8001${API_PREFIX}${path}`;
    const env: TestBindings = { peer: init.peer ?? DEFAULT_PEER, tls: init.tls ?? false };
    return Promise.resolve(
      app.request(
        url,
        { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) },
        env,
      ),
    );
  };

  const verify = (token: string, init: TestRequest = {}) => request('/auth/verify', { method: 'POST', json: { token }, ...init });

  /** Logs in and returns the cookie value as the server set it (percent-encoded). */
  const login = async (token: string = boot.temporaryToken as string, init: TestRequest = {}): Promise<string> => {
    const res = await verify(token, init);
    expect(res.status).toBe(200);
    const value = sessionCookieValue(res);
    if (value === null) throw new Error('login set no bot_session cookie');
    return value;
  };

  /** Creates an API key straight in the core and returns it. */
  const createKey = async (name: string, scope: 'read' | 'admin' = 'read', lifetimeMs: number | null = null): Promise<string> => {
    const created = await harness.keys.create({ name, scope, lifetimeMs });
    if (!created.ok) throw new Error(`key refused: ${created.error}`);
    return created.value.key;
  };

  return { app, harness, logger, audit, policy, token: boot.temporaryToken, request, verify, login, createKey };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/** The bot_session Set-Cookie lines of a response. */
export function sessionSetCookies(res: Response): string[] {
  return res.headers.getSetCookie().filter((line) => line.startsWith('bot_session='));
}

export function sessionCookieValue(res: Response): string | null {
  const line = sessionSetCookies(res)[0];
  if (!line) return null;
  return line.slice('bot_session='.length).split(';')[0] ?? null;
}

/** docs/decisions/0001-error-bodies.md: a JSON body with a human `detail` and a snake_case `code`. */
export async function expectErrorBody(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await json(res);
  expect(typeof body.detail).toBe('string');
  expect((body.detail as string).length).toBeGreaterThan(0);
  expect(body.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  expect(body.code).toBe(code);
  return body;
}
