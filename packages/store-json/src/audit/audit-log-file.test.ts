import type { SecurityEvent } from '@webui/core';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_LOG_FILE_NAME, AuditLogFile, type AuditLogFileOptions } from './audit-log-file.js';
import { readAuditLog } from './audit-log-reader.js';

const T0 = Date.parse('2025-03-01T12:00:00.000Z');
const FAILED: SecurityEvent = { event: 'login_failed', address: '203.0.113.7', via: 'api', how: 'verify', counted: true, remaining: 2 };

let dataDir: string;
let opened: AuditLogFile[];

beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'webui-audit-')), 'data');
  opened = [];
});

afterEach(() => {
  for (const audit of opened) audit.close();
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

function auditFile(options: Partial<AuditLogFileOptions> = {}): AuditLogFile {
  const audit = new AuditLogFile({ dataDir, maxBytes: 1024 * 1024, keep: 5, now: millisecondsApart(), ...options });
  opened.push(audit);
  return audit;
}

const livePath = () => join(dataDir, AUDIT_LOG_FILE_NAME);
const modeOf = (path: string) => statSync(path).mode & 0o777;
const fileLines = (path: string) => readFileSync(path, 'utf8').split('\n');
const remaining = (name: string) =>
  fileLines(join(dataDir, name))
    .filter(Boolean)
    .map((text) => (JSON.parse(text) as { remaining: number }).remaining);
/** Clocks for an audit file whose lines are written a second, or a millisecond, apart. */
const secondsApart = () => {
  let now = T0;
  return () => (now += 1_000);
};
const millisecondsApart = () => {
  let now = T0;
  return () => now++;
};
const auditFiles = () =>
  readdirSync(dataDir)
    .filter((name) => name.startsWith(AUDIT_LOG_FILE_NAME))
    .sort();

/** A numbered login failure from its own address, so each line can be told apart. */
const failure = (n: number): SecurityEvent => ({
  event: 'login_failed',
  address: `198.51.100.${n % 250}`,
  via: 'api',
  how: 'cookie',
  counted: true,
  remaining: n,
});

describe('AuditLogFile', () => {
  it('appends one JSON line per event, time, event, address and via first, in a 0600 file', () => {
    const audit = auditFile();
    audit.record(FAILED);
    audit.record({ event: 'ban_lifted', address: null, via: 'cli', target: 'all', lifted: ['203.0.113.7'] });
    expect(readFileSync(livePath(), 'utf8')).toBe(
      '{"time":"2025-03-01T12:00:00.000Z","event":"login_failed","address":"203.0.113.7",' +
        '"via":"api","how":"verify","counted":true,"remaining":2}\n' +
        '{"time":"2025-03-01T12:00:00.001Z","event":"ban_lifted","address":null,"via":"cli","target":"all","lifted":["203.0.113.7"]}\n',
    );
    expect(modeOf(livePath())).toBe(0o600);
  });

  it('opening creates nothing: a data directory where nothing happened stays as it was', () => {
    mkdirSync(dataDir, { recursive: true });
    auditFile().open();
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('creates the data directory 0700 when it is missing', () => {
    auditFile().record(FAILED);
    expect(modeOf(dataDir)).toBe(0o700);
  });

  it('tightens an existing file to 0600 when it opens, and keeps its lines', () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(livePath(), '{"time":"2025-01-01T00:00:00.000Z","event":"setup_completed","address":null,"via":"cli"}\n', {
      mode: 0o644,
    });
    chmodSync(livePath(), 0o644);
    auditFile().open();
    expect(modeOf(livePath())).toBe(0o600);
    expect(readAuditLog(dataDir).lines.map((line) => line.event)).toEqual(['setup_completed']);
  });

  it('ends a torn last line (a crash mid-write) before appending, so only that line is lost', () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      livePath(),
      `${JSON.stringify({ time: '2025-01-01T00:00:00.000Z', event: 'setup_reset', address: null, via: 'cli' })}\n` +
        '{"time":"2025-01-01T00:00:01.000Z","ev',
    );
    const audit = auditFile();
    audit.open();
    // Ended at once: a line another process appends next must not join the torn one.
    expect(readFileSync(livePath(), 'utf8').endsWith('"ev\n')).toBe(true);
    audit.record(FAILED);
    const lines = fileLines(livePath());
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe('{"time":"2025-01-01T00:00:01.000Z","ev');
    expect(lines[3]).toBe('');
    const read = readAuditLog(dataDir);
    expect(read.lines.map((line) => line.event)).toEqual(['setup_reset', 'login_failed']);
    expect(read.skipped).toBe(1);
  });

  it('rotates before a line would pass maxBytes, keeping exactly `keep` rotated 0600 files with the newest lines', () => {
    const lineBytes = Buffer.byteLength(`${JSON.stringify({ time: new Date(T0).toISOString(), ...failure(100) })}\n`);
    const perFile = 4;
    const audit = auditFile({ maxBytes: lineBytes * perFile, keep: 3 });
    const total = 30;
    for (let n = 100; n < 100 + total; n++) audit.record(failure(n));

    expect(auditFiles()).toEqual(['audit.log', 'audit.log.1', 'audit.log.2', 'audit.log.3']);
    for (const name of auditFiles()) {
      expect(modeOf(join(dataDir, name))).toBe(0o600);
      expect(statSync(join(dataDir, name)).size).toBeLessThanOrEqual(lineBytes * perFile);
    }
    // 30 lines, 4 per file: the live file holds the last 2, the three rotated ones the 12 before them.
    const kept = readAuditLog(dataDir).lines.map((line) => (line.event === 'login_failed' ? line.remaining : undefined));
    expect(kept).toEqual(Array.from({ length: 14 }, (_, i) => 100 + total - 14 + i));
    expect(fileLines(join(dataDir, 'audit.log.3'))).toHaveLength(perFile + 1);
  });

  it('deletes rotated files past `keep` left by a larger setting', () => {
    mkdirSync(dataDir, { recursive: true });
    for (const n of [1, 2, 3, 7])
      writeFileSync(
        join(dataDir, `audit.log.${n}`),
        `${JSON.stringify({ time: '2025-01-01T00:00:00.000Z', event: 'setup_reset', address: null, via: 'cli' })}\n`,
      );
    writeFileSync(livePath(), 'x'.repeat(900) + '\n');
    auditFile({ maxBytes: 1000, keep: 2 }).record(FAILED);
    expect(auditFiles()).toEqual(['audit.log', 'audit.log.1', 'audit.log.2']);
    expect(readFileSync(join(dataDir, 'audit.log.1'), 'utf8')).toBe('x'.repeat(900) + '\n');
  });

  it('counts the lines another process appends from when it opens, and leaves them whole between its own', () => {
    const server = auditFile({ maxBytes: 100_000 });
    const cli = auditFile({ maxBytes: 100_000 });
    for (let n = 0; n < 50; n++) {
      server.record(failure(n));
      cli.record({ event: 'token_changed', address: null, via: 'cli', how: 'regenerate' });
    }
    const read = readAuditLog(dataDir);
    expect(read.skipped).toBe(0);
    expect(read.lines).toHaveLength(100);
    expect(read.lines.filter((line) => line.event === 'token_changed')).toHaveLength(50);
  });

  /**
   * The server and the CLI append to files of three lines; the CLI rotates once, after the server's
   * two lines and its own first one; then the server writes two more.
   */
  function rotateUnderTheServer(clock: () => AuditLogFileOptions['now']): void {
    const lineBytes = Buffer.byteLength(`${JSON.stringify({ time: new Date(T0).toISOString(), ...failure(100) })}\n`);
    const server = auditFile({ maxBytes: lineBytes * 3, keep: 5, now: clock() });
    const cli = auditFile({ maxBytes: lineBytes * 3, keep: 5, now: clock() });
    server.record(failure(100));
    server.record(failure(101));
    cli.record(failure(102));
    // The CLI sees a full file and rotates it; the server still believes it holds two lines.
    cli.record(failure(103));
    server.record(failure(104));
    server.record(failure(105));
  }

  it('writes into the file named audit.log: one another process rotated is left for the new one, not rotated twice', () => {
    // Lines a second apart: each finds the name checked again.
    rotateUnderTheServer(secondsApart);
    expect(auditFiles()).toEqual(['audit.log', 'audit.log.1']);
    expect(remaining('audit.log.1')).toEqual([100, 101, 102]);
    expect(remaining('audit.log')).toEqual([103, 104, 105]);
  });

  it(
    'within the second after another process rotated, lines go to the moved file; none is lost, and the new file is not ' + 'rotated again',
    () => {
      // Lines a millisecond apart: 104 joins the file the server was writing, now audit.log.1; 105 would pass
      // maxBytes by the server's count, so the name is checked before rotating and the new file is measured instead.
      rotateUnderTheServer(millisecondsApart);
      expect(auditFiles()).toEqual(['audit.log', 'audit.log.1']);
      expect(remaining('audit.log.1')).toEqual([100, 101, 102, 104]);
      expect(remaining('audit.log')).toEqual([103, 105]);
    },
  );

  it('starts a new file when the live one was deleted or moved away by hand while open, noticed within a second', () => {
    const audit = auditFile({ now: secondsApart() });
    audit.record(failure(1));
    rmSync(livePath());
    audit.record(failure(2));
    expect(readAuditLog(dataDir).lines).toHaveLength(1);
    expect(modeOf(livePath())).toBe(0o600);
    renameSync(livePath(), join(dataDir, 'moved-by-hand.log'));
    audit.record(failure(3));
    expect(remaining('audit.log')).toEqual([3]);
    expect(remaining('moved-by-hand.log')).toEqual([2]);
  });

  it(
    'groupCommit: the lines of one turn are written together once written() resolves, rotating between lines as one at a ' + 'time would',
    async () => {
      const lineBytes = Buffer.byteLength(`${JSON.stringify({ time: new Date(T0).toISOString(), ...failure(100) })}\n`);
      const audit = auditFile({ maxBytes: lineBytes * 3, keep: 5, groupCommit: true });
      expect(audit.written()).toBeNull();
      for (let n = 100; n < 105; n++) audit.record(failure(n));
      const written = audit.written();
      expect(written).toBeInstanceOf(Promise);
      // Nothing is on disk before the turn ends (not even the directory); everything is once written() resolves.
      expect(existsSync(dataDir)).toBe(false);
      await written;
      expect(audit.written()).toBeNull();
      expect(auditFiles()).toEqual(['audit.log', 'audit.log.1']);
      expect(remaining('audit.log.1')).toEqual([100, 101, 102]);
      expect(remaining('audit.log')).toEqual([103, 104]);
    },
  );

  it('groupCommit: close writes what is pending', () => {
    const audit = auditFile({ groupCommit: true });
    audit.record(failure(1));
    audit.record(failure(2));
    audit.close();
    expect(remaining('audit.log')).toEqual([1, 2]);
  });

  it('never throws: a failing write is reported once until a write succeeds again, and later events are written', () => {
    const errors: unknown[] = [];
    const audit = auditFile({ onError: (error) => errors.push(error) });
    // A directory where the file should be: every open fails.
    mkdirSync(livePath(), { recursive: true });
    for (let n = 0; n < 5; n++) expect(() => audit.record(failure(n))).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/EISDIR/);

    rmSync(livePath(), { recursive: true });
    audit.record(failure(5));
    expect(readAuditLog(dataDir).lines).toHaveLength(1);

    audit.close();
    rmSync(livePath());
    mkdirSync(livePath());
    audit.record(failure(6));
    expect(errors).toHaveLength(2);
  });

  it('writes only the event: no field beyond those it carries ever reaches the file', () => {
    const secret = 'Sup3r-Secret-Token!';
    const audit = auditFile();
    // Events carry no secret by construction; a key's name is the only free text, and it is a name.
    audit.record({ event: 'login_succeeded', address: '127.0.0.1', via: 'api', how: 'bearer', key: 'deploy-bot' });
    audit.record({ event: 'token_changed', address: '127.0.0.1', via: 'api', how: 'update' });
    audit.record({ event: 'key_created', address: null, via: 'cli', key: 'deploy-bot', scope: 'read', expires_at: null });
    const text = readFileSync(livePath(), 'utf8');
    expect(text).not.toContain(secret);
    for (const line of text.trimEnd().split('\n')) {
      expect(
        Object.keys(JSON.parse(line) as object).every((key) =>
          ['time', 'event', 'address', 'via', 'how', 'key', 'scope', 'expires_at'].includes(key),
        ),
      ).toBe(true);
    }
  });

  it('close is final for the descriptor but not for the file: a later record opens it again', () => {
    const audit = auditFile();
    audit.record(FAILED);
    audit.close();
    audit.close();
    audit.record(FAILED);
    expect(readAuditLog(dataDir).lines).toHaveLength(2);
  });

  it('appends after lines written by anyone while it was closed', () => {
    const audit = auditFile();
    audit.record(FAILED);
    audit.close();
    appendFileSync(
      livePath(),
      `${JSON.stringify({ time: '2025-03-01T12:00:05.000Z', event: 'setup_reset', address: null, via: 'cli' })}\n`,
    );
    audit.record(FAILED);
    expect(readAuditLog(dataDir).lines.map((line) => line.event)).toEqual(['login_failed', 'setup_reset', 'login_failed']);
  });
});
