import type { SecurityEvent } from '@webui/core';
import { formatIp, parseIp } from '@webui/core/net';
import { AuditLogFile } from '@webui/store-json';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupServers, makeTempDir } from '../harness/processes/server-process.js';

// The README's fail2ban filter, run by the real fail2ban-regex (Debian's fail2ban package; scripts/bootstrap.mjs
// --for-tests installs it) over a trail written by the server's own writer. Node only: not a *.e2e file.
afterAll(cleanupServers);

const README = fileURLToPath(new URL('../../../../docs/operations.md', import.meta.url));

/** The ```ini block holding [Definition] in the README's "Feeding fail2ban" section, so the README stays true. */
function readmeFilter(): string {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('Feeding fail2ban'));
  const block = /```ini\n(\[Definition\]\n[\s\S]*?)```/.exec(section)?.[1];
  if (!readme.includes('Feeding fail2ban') || block === undefined)
    throw new Error('docs/operations.md has no ```ini [Definition] block under "Feeding fail2ban"');
  return block;
}

function fail2banRegex(args: string[]): string {
  const run = spawnSync('fail2ban-regex', args, { encoding: 'utf8', timeout: 30_000 });
  if (run.error)
    throw new Error(
      `cannot run fail2ban-regex (${run.error.message}): install Debian's fail2ban package, as scripts/bootstrap.mjs --for-tests does`,
    );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** The address as the server logs a client: normalised (IPv6 compressed), never grouped by /64. */
function keyOf(client: string): string {
  const ip = parseIp(client);
  if (ip === null) throw new Error(`not an address: ${client}`);
  return formatIp(ip);
}

const failed = (
  client: string,
  how: 'verify' | 'cookie' | 'bearer',
  fields: Partial<Extract<SecurityEvent, { event: 'login_failed' }>> = {},
): SecurityEvent => ({
  event: 'login_failed',
  address: keyOf(client),
  via: 'api',
  how,
  counted: true,
  ...fields,
});

const COUNTED: SecurityEvent[] = [
  failed('203.0.113.7', 'verify', { remaining: 4 }),
  failed('203.0.113.7', 'verify', { remaining: 3 }),
  failed('198.51.100.23', 'cookie'),
  failed('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 'verify', { remaining: 2 }),
  failed('2001:db8:ffff:0:1::5', 'cookie'),
  failed('192.0.2.200', 'bearer', { key: 'ci "runner", counted:true' }),
  failed('10.1.2.3', 'bearer', { key: 'old-deploy', reason: 'expired_key' }),
  failed('fe80::1234', 'verify', { remaining: 0 }),
  failed('172.16.0.9', 'verify', { remaining: 1 }),
];
const COUNTED_ADDRESSES = COUNTED.map((event) => event.address);

// What fail2ban must never count: failures the server did not count, and every other event.
const NOT_COUNTED: SecurityEvent[] = [
  failed('198.51.100.50', 'cookie', { counted: false, reason: 'stale_session' }),
  failed('192.168.1.20', 'verify', { counted: false, reason: 'exempt', remaining: 4 }),
  failed('2001:db8:9:9::1', 'cookie', { counted: false, reason: 'stale_session' }),
  { event: 'login_succeeded', address: '203.0.113.8', via: 'api', how: 'verify' },
  { event: 'login_succeeded', address: '203.0.113.9', via: 'api', how: 'bearer', key: 'counted:true' },
  { event: 'ban_started', address: '203.0.113.7', via: 'api', how: 'verify', retry_after: 600 },
  { event: 'ban_lifted', address: null, via: 'cli', target: '203.0.113.7', lifted: ['203.0.113.7'] },
  { event: 'request_refused', address: '203.0.113.10', via: 'api', reason: 'origin_not_allowed', count: 3 },
  { event: 'key_first_used', address: '203.0.113.11', via: 'api', key: 'counted' },
  // A forwarded request's path is the caller's to choose: it must not make the line look like a counted failure.
  {
    event: 'upstream_request',
    address: '203.0.113.12',
    via: 'api',
    principal: 'session',
    method: 'POST',
    path: '/api/chat/,"event":"login_failed","address":"203.0.113.99","via":"api","counted":true}',
    status: 200,
  },
  // A bot's audit action and details are the bot's to choose, and may echo what a caller sent.
  {
    event: 'bot_action',
    address: '203.0.113.13',
    via: 'api',
    principal: 'key:deployer',
    method: 'PUT',
    path: '/api/webui/config',
    action: ',"event":"login_failed","address":"203.0.113.98","via":"api","counted":true}',
    details: { note: '"counted":true' },
  },
  { event: 'token_changed', address: null, via: 'startup', how: 'temporary' },
];

describe('the README fail2ban filter', () => {
  it('matches every counted failed login with its address, and nothing else', () => {
    const dir = makeTempDir('webui-fail2ban-');
    const filter = join(dir, 'webui.conf');
    writeFileSync(filter, readmeFilter());

    // Interleaved, as a real trail is, at times a second apart.
    let time = Date.parse('2025-03-01T12:00:00.123Z');
    const audit = new AuditLogFile({ dataDir: join(dir, 'data'), maxBytes: 1024 * 1024, keep: 1, now: () => (time += 1000) });
    for (let i = 0; i < Math.max(COUNTED.length, NOT_COUNTED.length); i++) {
      const counted = COUNTED[i];
      const other = NOT_COUNTED[i];
      if (other) audit.record(other);
      if (counted) audit.record(counted);
    }
    audit.close();
    const log = join(dir, 'data', 'audit.log');

    const summary = fail2banRegex([log, filter]);
    expect(summary).toMatch(
      new RegExp(`Lines: ${COUNTED.length + NOT_COUNTED.length} lines, 0 ignored, ${COUNTED.length} matched, ${NOT_COUNTED.length} missed`),
    );
    // Every line's time was read from its own field, none guessed.
    expect(summary).toMatch(new RegExp(`\\[${COUNTED.length + NOT_COUNTED.length}\\] \\^\\\\\\{"time"`));

    const addresses = fail2banRegex(['--out', 'ip', log, filter]).trimEnd().split('\n');
    expect(addresses).toEqual(COUNTED_ADDRESSES);
    expect(addresses).toContain('2001:db8:ffff:0:1::5');
  });
});
