import type { SecurityEvent } from '@webui/core';
import { AuditLogFile } from '@webui/store-json';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupServers, makeTempDir, SERVER_BUNDLE, startServer } from '../harness/processes/server-process.js';

// `webui audit` is apps/server's CLI (Node); not part of the *.e2e suite shared with Bun and Deno.
afterAll(cleanupServers);

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

// A zone without daylight saving time, so local times in the output are known: UTC+9.
const ZONE = 'Asia/Tokyo';

function webui(cwd: string, args: string[]): CliRun {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')));
  const run = spawnSync(process.execPath, [SERVER_BUNDLE, ...args], { cwd, env: { ...env, TZ: ZONE }, encoding: 'utf8', timeout: 15_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Records each event at its time with the server's own writer, into cwd/data (the default data directory). */
function recordEvents(cwd: string, entries: ReadonlyArray<readonly [number, SecurityEvent]>): string {
  const times = entries.map(([time]) => time);
  const audit = new AuditLogFile({ dataDir: join(cwd, 'data'), maxBytes: 1024 * 1024, keep: 5, now: () => times.shift() ?? Date.now() });
  for (const [, event] of entries) audit.record(event);
  audit.close();
  return join(cwd, 'data', 'audit.log');
}

const at = (iso: string) => Date.parse(iso);
const EVENT_NAMES =
  'login_succeeded, login_failed, ban_started, ban_lifted, budget_reset, token_changed, sessions_revoked, key_created, key_revoked, ' +
  'key_first_used, setup_completed, setup_reset, request_refused, upstream_request, bot_action';

const HISTORY = [
  [
    at('2025-03-01T12:00:00.000Z'),
    { event: 'login_failed', address: '203.0.113.7', via: 'api', how: 'verify', counted: true, remaining: 2 },
  ],
  [at('2025-03-01T12:00:01.000Z'), { event: 'ban_started', address: '203.0.113.7', via: 'api', how: 'verify', retry_after: 600 }],
  [
    at('2025-03-01T12:00:02.000Z'),
    { event: 'ban_lifted', address: null, via: 'cli', target: 'all', lifted: ['203.0.113.7', '2001:db8:1:2::/64'] },
  ],
  [
    at('2025-03-01T12:00:03.000Z'),
    { event: 'key_created', address: '127.0.0.1', via: 'api', key: 'deploy bot', scope: 'read', expires_at: null },
  ],
  [
    at('2025-03-01T12:00:04.000Z'),
    { event: 'login_succeeded', address: '2001:db8:1:2::/64', via: 'api', how: 'bearer', key: 'deploy bot' },
  ],
] as const satisfies ReadonlyArray<readonly [number, SecurityEvent]>;

describe('webui audit', () => {
  it('prints one line per event, oldest first: local time, event, address or -, via, then the other fields as key=value', () => {
    const cwd = makeTempDir();
    recordEvents(cwd, HISTORY);
    const run = webui(cwd, ['audit']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '2025-03-01 21:00:00 login_failed 203.0.113.7 api how=verify counted=true remaining=2',
        '2025-03-01 21:00:01 ban_started 203.0.113.7 api how=verify retry_after=600',
        '2025-03-01 21:00:02 ban_lifted - cli target=all lifted=["203.0.113.7","2001:db8:1:2::/64"]',
        '2025-03-01 21:00:03 key_created 127.0.0.1 api key="deploy bot" scope=read expires_at=null',
        '2025-03-01 21:00:04 login_succeeded 2001:db8:1:2::/64 api how=bearer key="deploy bot"',
        '',
      ].join('\n'),
    });
  });

  it('--json prints the lines exactly as stored', () => {
    const cwd = makeTempDir();
    const file = recordEvents(cwd, HISTORY);
    expect(webui(cwd, ['audit', '--json'])).toEqual({ code: 0, stdout: readFileSync(file, 'utf8'), stderr: '' });
  });

  it('reads the rotated files too, oldest first', () => {
    const cwd = makeTempDir();
    const dataDir = join(cwd, 'data');
    let time = at('2025-03-01T00:00:00.000Z');
    const audit = new AuditLogFile({ dataDir, maxBytes: 4096, keep: 100, now: () => (time += 1000) });
    for (let n = 0; n < 200; n++) audit.record({ event: 'key_first_used', address: '127.0.0.1', via: 'api', key: `key-${n}` });
    audit.close();
    const run = webui(cwd, ['audit', '--json']);
    expect(run.code).toBe(0);
    const keys = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { key: string }).key);
    expect(keys).toEqual(Array.from({ length: 200 }, (_, n) => `key-${n}`));
  });

  it('--event takes names, comma-separated or repeated', () => {
    const cwd = makeTempDir();
    recordEvents(cwd, HISTORY);
    const events = (...args: string[]) =>
      webui(cwd, ['audit', '--json', ...args])
        .stdout.trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events('--event', 'login_failed')).toEqual(['login_failed']);
    expect(events('--event', 'ban_started,ban_lifted', '--event=login_succeeded')).toEqual([
      'ban_started',
      'ban_lifted',
      'login_succeeded',
    ]);
  });

  it('--since takes a duration back from now, or a time (local unless it names a zone)', () => {
    const cwd = makeTempDir();
    const now = Date.now();
    recordEvents(cwd, [
      [now - 2 * 3_600_000, { event: 'setup_completed', address: null, via: 'cli' }],
      [now - 30 * 60_000, { event: 'setup_reset', address: null, via: 'cli' }],
      [now - 60_000, { event: 'token_changed', address: null, via: 'cli', how: 'regenerate' }],
    ]);
    const events = (since: string) =>
      webui(cwd, ['audit', '--json', '--since', since])
        .stdout.split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events('1h')).toEqual(['setup_reset', 'token_changed']);
    expect(events('5m')).toEqual(['token_changed']);
    expect(events('3h')).toEqual(['setup_completed', 'setup_reset', 'token_changed']);

    const dated = makeTempDir();
    recordEvents(dated, HISTORY);
    const datedEvents = (...args: string[]) =>
      webui(dated, ['audit', '--json', ...args])
        .stdout.split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(datedEvents('--since', '2025-03-01T12:00:03Z')).toEqual(['key_created', 'login_succeeded']);
    expect(datedEvents('--since=2025-03-01T21:00:03')).toEqual(['key_created', 'login_succeeded']);
    expect(datedEvents('--since', '2025-03-01 21:00:02+09:00', '--event', 'ban_lifted')).toEqual(['ban_lifted']);
    expect(datedEvents('--since', '2025-03-02')).toEqual([]);
    expect(datedEvents('--since', '2025-03-01')).toHaveLength(HISTORY.length);
  });

  it('without an audit log: nothing on stdout, a note on stderr, exit 0', () => {
    const run = webui(makeTempDir(), ['audit']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^no audit log in .*data yet: the server writes audit\.log there at the first security event\n$/);
  });

  it('skips a torn line, prints the rest and says how many it skipped', () => {
    const cwd = makeTempDir();
    const file = recordEvents(cwd, HISTORY.slice(0, 2));
    appendFileSync(file, '{"time":"2025-03-01T12:00:09.000Z","event":"login_fa');
    const run = webui(cwd, ['audit']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toHaveLength(3);
    expect(run.stderr).toBe('skipped 1 line that is not a whole audit line (cut short by a crash, or edited by hand)\n');
  });

  it.each([
    [['--event', 'coffee_made'], /^webui audit: unknown event "coffee_made"; the events are (.*)\n$/],
    [['--event', 'login_failed,nope'], /^webui audit: unknown event "nope"; the events are (.*)\n$/],
    [['--event'], /^webui audit: --event takes event names separated by commas; the events are (.*)\n$/],
    [['--event=,'], /^webui audit: --event takes event names separated by commas; the events are (.*)\n$/],
    [['--since', 'yesterday'], /^webui audit: --since takes a duration \(30s, 15m, 1h, 7d, 2w\) or a time \(.*\), got "yesterday"\n$/],
    [['--since', '0h'], /^webui audit: --since takes a duration .*, got "0h"\n$/],
    [['--since', '--json'], /^webui audit: --since takes a duration .*\(.*\)\n$/],
    [['--frob'], /^webui audit: unknown option or argument "--frob"\n$/],
    [['login_failed'], /^webui audit: unknown option or argument "login_failed"\n$/],
  ])('usage error %j exits 2 with one line naming what is allowed', (args, message) => {
    const cwd = makeTempDir();
    recordEvents(cwd, HISTORY);
    const run = webui(cwd, ['audit', ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    const listed = message.exec(run.stderr)?.[1];
    if (listed !== undefined && message.source.includes('the events are')) expect(listed).toBe(EVENT_NAMES);
  });

  it('reads while a server runs and holds the data directory: it needs neither the lock nor the token', async () => {
    const server = await startServer();
    recordEvents(server.cwd, [[Date.now(), { event: 'key_revoked', address: '127.0.0.1', via: 'api', key: 'ci-runner' }]]);
    const run = webui(server.cwd, ['audit', '--event', 'key_revoked', '--json']);
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as object),
    ).toEqual([expect.objectContaining({ event: 'key_revoked', key: 'ci-runner' })]);
    expect(await server.stop()).toBe(0);
  });

  it('help lists the audit command', () => {
    expect(webui(makeTempDir(), ['help']).stdout).toMatch(/audit \[--since WHEN\] \[--event NAME\[,NAME\.\.\.\]\] \[--json\]/);
  });
});
