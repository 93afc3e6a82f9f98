import { AuditLogFile, readAuditLog } from '@webui/store-json';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChildScript } from '../harness/processes/child-script.js';
import { cleanupServers, eventually, makeTempDir } from '../harness/processes/server-process.js';

// data/audit.log under SIGKILL, with real processes (Node only: the writer is store-json's, whatever the runtime).
afterAll(cleanupServers);

// Where '@webui/store-json' resolves for the script bundled below: apps/server depends on it.
const KEEP = 3;
// Small files, so kills land during rotations as well as during writes.
const MAX_BYTES = 16 * 1024;

let writerScript: string;

beforeAll(async () => {
  writerScript = join(makeTempDir('webui-audit-writer-'), 'record-events.mjs');
  await bundleChildScript(
    `
        import { AuditLogFile } from '@webui/store-json';
        const [dataDir, writer, maxBytes, keep] = process.argv.slice(2);
        const onError = (error) => process.stderr.write(String(error) + '\\n');
        const audit = new AuditLogFile({ dataDir, maxBytes: Number(maxBytes), keep: Number(keep), onError });
        process.stdout.write('recording\\n');
        for (let n = 0; ; n++) {
          const address = '10.0.' + (n % 250) + '.' + writer;
          const key = 'writer-' + writer + '-' + n;
          audit.record({ event: 'login_failed', address, via: 'api', how: 'verify', key, counted: true, remaining: n % 5 });
        }
      `,
    writerScript,
  );
});

interface Writer {
  child: ChildProcess;
  /** What its onError reported. */
  errors(): string;
}

/** Starts a writer recording events as fast as it can; resolves once it records. */
function startWriter(dataDir: string, writer: number): Promise<Writer> {
  const child = spawn(process.execPath, [writerScript, dataDir, String(writer), String(MAX_BYTES), String(KEEP)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve({ child, errors: () => errors }));
    child.once('exit', (code) => reject(new Error(`the audit writer exited early (${code}): ${errors}`)));
  });
}

/**
 * Waits until the writers have rotated the files KEEP times: the kill then lands among writes and rotations, with lines enough to check.
 */
async function rotatedKeepTimes(dataDir: string): Promise<void> {
  const files = () => (existsSync(dataDir) ? readdirSync(dataDir).filter((name) => name.startsWith('audit.log')).length : 0);
  await eventually(() => files() > KEEP, 10_000, 'the writers rotated the audit log');
}

function kill({ child }: Writer): Promise<void> {
  return new Promise((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Every line read is whole: exactly the fields the writer gives, its key naming the writer. */
function expectWholeLines(dataDir: string, writers: number[]): number {
  const read = readAuditLog(dataDir);
  expect(read.lines.length).toBeGreaterThan(KEEP * 10);
  for (const line of read.lines) {
    expect(Object.keys(line)).toEqual(['time', 'event', 'address', 'via', 'how', 'key', 'counted', 'remaining']);
    expect(line).toMatchObject({ event: 'login_failed', via: 'api', how: 'verify', counted: true });
    const writer = /^writer-(\d+)-\d+$/.exec(line.event === 'login_failed' ? (line.key ?? '') : '')?.[1];
    expect(writers).toContain(Number(writer));
    expect(line.address).toMatch(new RegExp(`^10\\.0\\.\\d+\\.${writer}$`));
  }
  return read.skipped;
}

function expectBoundedPrivateFiles(dataDir: string): void {
  const files = readdirSync(dataDir).filter((name) => name.startsWith('audit.log'));
  expect(files.length).toBeLessThanOrEqual(KEEP + 1);
  for (const name of files) expect(statSync(join(dataDir, name)).mode & 0o777).toBe(0o600);
}

describe('the audit log under SIGKILL', () => {
  it.each([1, 2, 3])(
    'kill %i: every line the reader returns is whole, at most one is skipped, and the next writer starts clean',
    async () => {
      const dataDir = join(makeTempDir('webui-audit-crash-'), 'data');
      const writer = await startWriter(dataDir, 1);
      await rotatedKeepTimes(dataDir);
      await kill(writer);
      expect(writer.errors()).toBe('');

      const skipped = expectWholeLines(dataDir, [1]);
      expect(skipped).toBeLessThanOrEqual(1);
      expectBoundedPrivateFiles(dataDir);

      // The next opening ends a torn line at once, so what comes after it reads whole.
      const next = new AuditLogFile({ dataDir, maxBytes: MAX_BYTES, keep: KEEP });
      next.open();
      next.record({
        event: 'login_failed',
        address: '10.0.0.2',
        via: 'api',
        how: 'verify',
        key: 'writer-2-0',
        counted: true,
        remaining: 0,
      });
      next.close();
      expect(expectWholeLines(dataDir, [1, 2])).toBe(skipped);
      expect(readAuditLog(dataDir).lines.at(-1)).toMatchObject({ key: 'writer-2-0' });
    },
  );

  it(
    'two processes appending and rotating the same files at once, both killed: no error, every line whole, at most one ' +
      'skipped per kill',
    async () => {
      const dataDir = join(makeTempDir('webui-audit-crash-two-'), 'data');
      const writers = await Promise.all([startWriter(dataDir, 1), startWriter(dataDir, 2)]);
      await rotatedKeepTimes(dataDir);
      await Promise.all(writers.map(kill));
      // Rotating at the same moment is no error: a file the other moved first is where it put it.
      expect(writers.map((writer) => writer.errors())).toEqual(['', '']);

      expect(expectWholeLines(dataDir, [1, 2])).toBeLessThanOrEqual(2);
      expectBoundedPrivateFiles(dataDir);
    },
  );
});
