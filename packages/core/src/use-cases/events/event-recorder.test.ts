import { describe, expect, it } from 'vitest';
import { RecordingAuditSink, RecordingLogger } from '../../testing/recording-sinks.js';
import { EventRecorder } from './event-recorder.js';
import type { OperationEvent } from './operation-event.js';

const IP = '203.0.113.7';

function record(events: OperationEvent[], withLogger = true) {
  const audit = new RecordingAuditSink();
  const logger = new RecordingLogger();
  new EventRecorder(audit, withLogger ? logger : null, () => 0).record(events);
  return { audited: audit.events, logged: logger.lines };
}

describe('EventRecorder: the one place events become audit lines and log lines', () => {
  it('a counted failure: an info line named after how the secret came, with what is left', () => {
    const event = {
      event: 'login_failed',
      address: IP,
      via: 'api',
      how: 'bearer',
      key: 'ci',
      counted: true,
      remaining: 3,
      reason: 'expired_key',
    } as const;
    const { audited, logged } = record([event]);
    expect(audited).toEqual([event]);
    expect(logged).toEqual([
      { level: 'info', fields: { ip: IP, via: 'bearer', remaining: 3, key: 'ci' }, message: 'bearer credential rejected' },
    ]);
  });

  it('the failure that bans is told by one warn line; both events are audited', () => {
    const events: OperationEvent[] = [
      { event: 'login_failed', address: IP, via: 'api', how: 'verify', counted: true, remaining: 0 },
      { event: 'ban_started', address: IP, via: 'api', how: 'verify', retry_after: 600 },
    ];
    const { audited, logged } = record(events);
    expect(audited).toEqual(events);
    expect(logged).toEqual([
      { level: 'warn', fields: { ip: IP, via: 'verify', retryAfter: 600 }, message: 'client banned after repeated failed verifications' },
    ]);
  });

  it('an uncounted failure is logged with its reason', () => {
    const { logged } = record([{ event: 'login_failed', address: IP, via: 'api', how: 'cookie', counted: false, reason: 'stale_session' }]);
    expect(logged).toEqual([
      { level: 'info', fields: { ip: IP, via: 'cookie', counted: false, reason: 'stale_session' }, message: 'session cookie rejected' },
    ]);
  });

  it("a login is audited without the token's source, which only the once-a-minute login line names", () => {
    const { audited, logged } = record([{ event: 'login_succeeded', address: IP, via: 'api', how: 'verify', tokenSource: 'configured' }]);
    expect(audited).toEqual([{ event: 'login_succeeded', address: IP, via: 'api', how: 'verify' }]);
    expect(logged).toEqual([{ level: 'info', fields: { ip: IP, tokenSource: 'configured' }, message: 'login succeeded' }]);
  });

  it("an operator's changes: who, what and through what; notices are logged, never audited", () => {
    const { audited, logged } = record([
      { event: 'ban_lifted', target: 'all', lifted: [IP], address: IP, via: 'api' },
      { event: 'ban_lift_matched_nothing', target: 'all', address: null, via: 'cli' },
      { event: 'ban_lift_refused', target: 'all', address: IP, via: 'api' },
      { event: 'budget_reset', cleared: 2, address: null, via: 'cli' },
      { event: 'key_created', key: 'ci', scope: 'read', expires_at: null, address: null, via: 'cli' },
      { event: 'key_revoked', key: 'ci', address: null, via: 'cli' },
      { event: 'key_first_used', key: 'ci', address: IP, via: 'api' },
      { event: 'token_changed', how: 'update', address: IP, via: 'api' },
      { event: 'setup_completed', address: null, via: 'cli' },
      { event: 'setup_reset', address: null, via: 'cli' },
      { event: 'request_refused', reason: 'origin_not_allowed', count: 1, address: IP, via: 'api' },
    ]);
    expect(audited.map((event) => event.event)).toEqual([
      'ban_lifted',
      'budget_reset',
      'key_created',
      'key_revoked',
      'key_first_used',
      'token_changed',
      'setup_completed',
      'setup_reset',
      'request_refused',
    ]);
    expect(logged).toEqual([
      { level: 'info', fields: { ip: IP, target: 'all', lifted: [IP], via: 'api' }, message: 'bans lifted' },
      { level: 'info', fields: { target: 'all', lifted: [], via: 'cli' }, message: 'ban lift matched nothing' },
      { level: 'warn', fields: { ip: IP, target: 'all', via: 'api' }, message: 'ban lift refused: an API key may not lift its own ban' },
      { level: 'info', fields: { cleared: 2, via: 'cli' }, message: 'global failure budget reset' },
      { level: 'info', fields: { key: 'ci', scope: 'read', expiresAt: null, via: 'cli' }, message: 'API key created' },
      { level: 'info', fields: { key: 'ci', via: 'cli' }, message: 'API key revoked' },
      { level: 'info', fields: { ip: IP, key: 'ci' }, message: 'API key used for the first time' },
      { level: 'info', fields: { ip: IP, tokenSource: 'configured', how: 'update', via: 'api' }, message: 'access token changed' },
      { level: 'info', fields: { via: 'cli' }, message: 'first setup completed' },
      { level: 'info', fields: { via: 'cli' }, message: 'first setup reset' },
    ]);
  });

  it('without a logger (the CLI on a stopped server) only the audit trail is written', () => {
    const { audited, logged } = record([{ event: 'setup_completed', address: null, via: 'cli' }], false);
    expect(audited).toHaveLength(1);
    expect(logged).toEqual([]);
  });
});
