import { createCoreHarness } from '@webui/core/testing';
import type { AppLogger } from '@webui/http-hono';
import { existsSync, lstatSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REQUEST_LINE_BYTES } from './control-protocol.js';
import { openControlSocket, type ControlSocket } from './control-socket.js';
import { controlSocketPlace } from './control-socket-place.js';

interface LoggedLine {
  level: string;
  fields: object;
  message: string;
}

function recordingLogger(): AppLogger & { lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const record = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  return { lines, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

const dirs: string[] = [];
const sockets: ControlSocket[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webui-control-'));
  dirs.push(dir);
  return dir;
}

async function openOn(dataDir: string, options: { idleTimeoutMs?: number } = {}) {
  const core = createCoreHarness();
  const logger = recordingLogger();
  const socket = await openControlSocket({ dataDir, bans: core.bans, logger, ...options });
  if (socket) sockets.push(socket);
  return { core, logger, socket };
}

/** Writes `text`, then reads until `lines` answer lines arrived or the server closed; `end` half-closes after writing. */
function converse(path: string, text: string, { lines = 1, end = false }: { lines?: number; end?: boolean } = {}): Promise<{ answers: unknown[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let received = '';
    const answers = () => received.split('\n').filter((line) => line !== '').map((line): unknown => JSON.parse(line));
    socket.setEncoding('utf8');
    socket.on('connect', () => (end ? socket.end(text) : socket.write(text)));
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (!end && received.split('\n').length - 1 >= lines) {
        socket.destroy();
        resolve({ answers: answers(), closed: false });
      }
    });
    socket.on('close', () => resolve({ answers: answers(), closed: true }));
    socket.on('error', reject);
  });
}

describe('the control socket', () => {
  it('listens on <dataDir>/webui.sock with mode 0600 and removes the file on close', async () => {
    const dataDir = tempDataDir();
    const { socket } = await openOn(dataDir);
    const path = join(dataDir, 'webui.sock');
    expect(socket?.path).toBe(path);
    expect(lstatSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await socket?.close();
    expect(existsSync(path)).toBe(false);
  });

  it('answers every line of one connection in order, refusals included', async () => {
    const dataDir = tempDataDir();
    const { socket } = await openOn(dataDir);
    const requests = ['{"op":"bans.list"}', 'garbage', '{"op":"bans.frob"}', '', '{"op":"bans.lift","target":"two words"}', '{"op":"bans.lift","target":"all"}'];
    const { answers } = await converse(socket?.path ?? '', `${requests.join('\n')}\n`, { lines: 5 });
    expect(answers).toEqual([
      { ok: true, bans: [] },
      { ok: false, code: 'bad_request', detail: expect.stringMatching(/JSON/) },
      { ok: false, code: 'bad_request', detail: expect.stringMatching(/^op: /) },
      { ok: false, code: 'invalid_ban_target', detail: expect.stringMatching(/all.*address.*CIDR/) },
      { ok: true, lifted: [] },
    ]);
  });

  it('lists and lifts through the core BanPolicy, logging a lift with via cli', async () => {
    const dataDir = tempDataDir();
    const { core, logger, socket } = await openOn(dataDir);
    for (let n = 0; n < 5; n++) await core.bans.recordFailure('203.0.113.7');
    await core.bans.recordFailure('203.0.113.8');
    const path = socket?.path ?? '';

    const listed = await converse(path, '{"op":"bans.list"}\n');
    expect(listed.answers).toEqual([
      {
        ok: true,
        bans: [
          { key: '203.0.113.7', failures: 0, banned_until: expect.any(String), last_attempt: expect.any(String) },
          { key: '203.0.113.8', failures: 1, banned_until: null, last_attempt: expect.any(String) },
        ],
      },
    ]);

    const lifted = await converse(path, '{"op":"bans.lift","target":"203.0.113.7"}\n');
    expect(lifted.answers).toEqual([{ ok: true, lifted: [expect.objectContaining({ key: '203.0.113.7' })] }]);
    expect(await core.bans.status('203.0.113.7')).toEqual({ banned: false });
    expect(logger.lines).toContainEqual({ level: 'info', fields: { target: '203.0.113.7', lifted: ['203.0.113.7'], via: 'cli' }, message: 'bans lifted' });
  });

  it('answers a last line without its newline when the client half-closes (nc -U)', async () => {
    const { socket } = await openOn(tempDataDir());
    expect(await converse(socket?.path ?? '', '{"op":"bans.list"}', { end: true })).toEqual({ answers: [{ ok: true, bans: [] }], closed: true });
  });

  it(`refuses a line over ${MAX_REQUEST_LINE_BYTES} bytes and closes the connection`, async () => {
    const { socket } = await openOn(tempDataDir());
    const long = `{"op":"bans.lift","target":"${'x'.repeat(MAX_REQUEST_LINE_BYTES)}"}`;
    for (const text of [`${long}\n`, long]) {
      const { answers, closed } = await converse(socket?.path ?? '', text, { lines: 2 });
      expect(closed).toBe(true);
      expect(answers).toEqual([{ ok: false, code: 'bad_request', detail: expect.stringMatching(/at most 16384 bytes/) }]);
    }
  });

  it('closes a connection that stays idle', async () => {
    const { socket } = await openOn(tempDataDir(), { idleTimeoutMs: 100 });
    const started = Date.now();
    expect(await converse(socket?.path ?? '', '')).toEqual({ answers: [], closed: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('replaces a socket file left by a killed server', async () => {
    const dataDir = tempDataDir();
    const path = join(dataDir, 'webui.sock');
    // A process killed while listening leaves its socket file behind (a clean close would remove it).
    spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(lstatSync(path).isSocket()).toBe(true);
    const { socket } = await openOn(dataDir);
    expect(socket).not.toBeNull();
    expect((await converse(path, '{"op":"bans.list"}\n')).answers).toEqual([{ ok: true, bans: [] }]);
  });

  it('leaves a file that is not a socket alone and runs without the socket, with one warning', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'webui.sock'), 'mine');
    const { logger, socket } = await openOn(dataDir);
    expect(socket).toBeNull();
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([expect.objectContaining({ message: expect.stringMatching(/cannot open the control socket/) })]);
  });

  it('runs without the socket when its path is too long, with one warning naming the path', async () => {
    const dataDir = join(tempDataDir(), 'd'.repeat(120));
    const { logger, socket } = await openOn(dataDir);
    expect(socket).toBeNull();
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ path: join(dataDir, 'webui.sock') }) })]);
  });

  it('is not offered on Windows', () => {
    expect(controlSocketPlace('C:\\webui\\data', 'win32').kind).toBe('unsupported');
  });
});
