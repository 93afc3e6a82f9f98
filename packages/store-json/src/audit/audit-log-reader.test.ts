import type { SecurityEvent } from '@webui/core';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_LOG_FILE_NAME, AuditLogFile } from './audit-log-file.js';
import { parseAuditLine, readAuditLog } from './audit-log-reader.js';

let dataDir: string;

beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'webui-audit-read-')), 'data');
  mkdirSync(dataDir);
});

afterEach(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

const at = (iso: string) => Date.parse(iso);
const line = (time: string, event: string, extra: object = {}) =>
  JSON.stringify({ time, event, address: '192.0.2.1', via: 'api', ...extra });
const writeAuditFile = (name: string, lines: string[]) => writeFileSync(join(dataDir, name), lines.map((text) => `${text}\n`).join(''));

describe('readAuditLog', () => {
  it('finds nothing, and no file, when there is no audit trail or no data directory', () => {
    expect(readAuditLog(dataDir)).toEqual({ lines: [], skipped: 0, files: [] });
    expect(readAuditLog(join(dataDir, 'missing'))).toEqual({ lines: [], skipped: 0, files: [] });
  });

  it('reads the rotated files oldest first, then the live file', () => {
    writeAuditFile('audit.log.2', [line('2025-01-01T00:00:00.000Z', 'setup_completed')]);
    writeAuditFile('audit.log.1', [line('2025-01-02T00:00:00.000Z', 'setup_reset')]);
    writeAuditFile('audit.log.10', [line('2024-12-01T00:00:00.000Z', 'key_revoked', { key: 'old' })]);
    writeAuditFile(AUDIT_LOG_FILE_NAME, [line('2025-01-03T00:00:00.000Z', 'login_failed', { how: 'verify', counted: true })]);
    // Not ours: a hand-made backup is never read.
    writeAuditFile('audit.log.bak', [line('2025-01-04T00:00:00.000Z', 'setup_reset')]);
    const read = readAuditLog(dataDir);
    expect(read.lines.map((entry) => entry.time)).toEqual([
      '2024-12-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
      '2025-01-02T00:00:00.000Z',
      '2025-01-03T00:00:00.000Z',
    ]);
    expect(read.files).toEqual(['audit.log.10', 'audit.log.2', 'audit.log.1', 'audit.log'].map((name) => join(dataDir, name)));
    expect(read.skipped).toBe(0);
  });

  it('returns each line as written, fields in their order, so it can be printed back unchanged', () => {
    const written = line('2025-01-03T00:00:00.000Z', 'ban_started', { how: 'cookie', retry_after: 600 });
    writeAuditFile(AUDIT_LOG_FILE_NAME, [written]);
    expect(readAuditLog(dataDir).lines.map((entry) => JSON.stringify(entry))).toEqual([written]);
  });

  it('skips and counts lines that are not JSON or lack the shape every line has; blank lines are not lines', () => {
    writeAuditFile(AUDIT_LOG_FILE_NAME, [
      line('2025-01-01T00:00:00.000Z', 'setup_completed'),
      'not json',
      '{"time":"2025-01-01T00:00:01.000Z","event":"login_fa',
      '[1,2]',
      JSON.stringify({ time: 'yesterday', event: 'setup_reset', address: null, via: 'cli' }),
      JSON.stringify({ time: '2025-13-01T00:00:00.000Z', event: 'setup_reset', address: null, via: 'cli' }),
      JSON.stringify({ time: '2025-01-01T00:00:02.000Z', event: 'coffee_made', address: null, via: 'cli' }),
      JSON.stringify({ time: '2025-01-01T00:00:02.000Z', event: 'setup_reset', address: 7, via: 'cli' }),
      JSON.stringify({ time: '2025-01-01T00:00:02.000Z', event: 'setup_reset', address: null }),
      '',
      '   ',
      JSON.stringify({ time: '2025-01-01T00:00:03.000Z', event: 'setup_reset', address: null, via: 'cli', field_of_a_newer_version: 1 }),
    ]);
    const read = readAuditLog(dataDir);
    expect(read.lines.map((entry) => entry.event)).toEqual(['setup_completed', 'setup_reset']);
    expect(read.skipped).toBe(8);
  });

  it('counts a last line without its newline (torn by a kill) as skipped', () => {
    writeFileSync(
      join(dataDir, AUDIT_LOG_FILE_NAME),
      `${line('2025-01-01T00:00:00.000Z', 'setup_completed')}\n{"time":"2025-01-01T00:00:01.0`,
    );
    expect(readAuditLog(dataDir)).toMatchObject({ skipped: 1, lines: [{ event: 'setup_completed' }] });
  });

  it('keeps lines whole across read chunks and skips a line too long to be one of ours without holding it', () => {
    const audit = new AuditLogFile({ dataDir, maxBytes: 100 * 1024 * 1024, keep: 1, now: () => at('2025-01-01T00:00:00.000Z') });
    const events: SecurityEvent[] = Array.from({ length: 3000 }, (_, n) => ({
      event: 'key_first_used',
      address: `10.0.${n >> 8}.${n & 255}`,
      via: 'api',
      key: `key-${n}`,
    }));
    for (const event of events.slice(0, 1500)) audit.record(event);
    audit.close();
    writeFileSync(join(dataDir, AUDIT_LOG_FILE_NAME), `${'x'.repeat(3 * 1024 * 1024)}\n`, { flag: 'a' });
    for (const event of events.slice(1500)) audit.record(event);
    audit.close();
    const read = readAuditLog(dataDir);
    expect(read.skipped).toBe(1);
    expect(read.lines.map((entry) => (entry.event === 'key_first_used' ? entry.key : null))).toEqual(events.map((_, n) => `key-${n}`));
  });

  it('filters by time (inclusive) and by event names', () => {
    writeAuditFile(AUDIT_LOG_FILE_NAME, [
      line('2025-01-01T00:00:00.000Z', 'login_failed', { how: 'verify', counted: true }),
      line('2025-01-01T01:00:00.000Z', 'login_succeeded', { how: 'verify' }),
      line('2025-01-01T02:00:00.000Z', 'login_failed', { how: 'cookie', counted: false, reason: 'stale_session' }),
      line('2025-01-01T03:00:00.000+01:00', 'ban_started', { how: 'verify', retry_after: 600 }),
    ]);
    const times = (filter: Parameters<typeof readAuditLog>[1]) => readAuditLog(dataDir, filter).lines.map((entry) => entry.time);
    expect(times({ since: at('2025-01-01T01:00:00.000Z') })).toEqual([
      '2025-01-01T01:00:00.000Z',
      '2025-01-01T02:00:00.000Z',
      '2025-01-01T03:00:00.000+01:00',
    ]);
    expect(times({ since: at('2025-01-01T02:00:00.001Z') })).toEqual([]);
    expect(times({ events: ['login_failed'] })).toEqual(['2025-01-01T00:00:00.000Z', '2025-01-01T02:00:00.000Z']);
    expect(times({ events: ['login_failed', 'ban_started'], since: at('2025-01-01T00:30:00.000Z') })).toEqual([
      '2025-01-01T02:00:00.000Z',
      '2025-01-01T03:00:00.000+01:00',
    ]);
    expect(times({ events: [] })).toEqual([]);
  });

  it('throws, naming the file, when an audit file exists but cannot be read', () => {
    mkdirSync(join(dataDir, AUDIT_LOG_FILE_NAME));
    expect(() => readAuditLog(dataDir)).toThrow(`cannot read ${join(dataDir, AUDIT_LOG_FILE_NAME)}`);
  });
});

describe('parseAuditLine', () => {
  it('returns a well-formed line as written, and null for anything else', () => {
    expect(parseAuditLine(line('2025-01-01T00:00:00Z', 'setup_reset'))).toEqual({
      time: '2025-01-01T00:00:00Z',
      event: 'setup_reset',
      address: '192.0.2.1',
      via: 'api',
    });
    expect(parseAuditLine('null')).toBeNull();
    expect(parseAuditLine('')).toBeNull();
  });
});
