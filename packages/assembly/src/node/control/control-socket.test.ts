import type { Logger, SecurityEvent } from '@webui/core';
import { createCoreHarness } from '@webui/core/testing';
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

function recordingLogger(): Logger & { lines: LoggedLine[] } {
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

/** The default budget of 100 with nothing spent. */
const OPEN_BUDGET = { limit: 100, failures: 0, state: 'open', delay_ms: null, retry_after: null };

const RECORD = { accessToken: 'Initial-Token_2024!', tokenSource: 'configured' as const, firstSetupCompleted: false };

async function openOn(dataDir: string, options: { idleTimeoutMs?: number } = {}) {
  const core = createCoreHarness({ record: RECORD });
  const logger = recordingLogger();
  const events: SecurityEvent[] = [];
  const socket = await openControlSocket({ dataDir, core, audit: { record: (event) => void events.push(event) }, logger, ...options });
  if (socket) sockets.push(socket);
  return { core, logger, events, socket };
}

/** Writes `text`, then reads until `lines` answer lines arrived or the server closed; `end` half-closes after writing. */
function converse(
  path: string,
  text: string,
  { lines = 1, end = false }: { lines?: number; end?: boolean } = {},
): Promise<{ answers: unknown[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let received = '';
    const answers = () =>
      received
        .split('\n')
        .filter((line) => line !== '')
        .map((line): unknown => JSON.parse(line));
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
    const requests = [
      '{"op":"bans.list"}',
      'garbage',
      '{"op":"bans.frob"}',
      '',
      '{"op":"bans.lift","target":"two words"}',
      '{"op":"bans.lift","target":"all"}',
    ];
    const { answers } = await converse(socket?.path ?? '', `${requests.join('\n')}\n`, { lines: 5 });
    expect(answers).toEqual([
      { ok: true, bans: [], budget: OPEN_BUDGET },
      { ok: false, code: 'bad_request', detail: expect.stringMatching(/JSON/) },
      { ok: false, code: 'bad_request', detail: expect.stringMatching(/^op: /) },
      { ok: false, code: 'invalid_ban_target', detail: expect.stringMatching(/all.*address.*CIDR/) },
      { ok: true, lifted: [] },
    ]);
  });

  it('lists and lifts through the core BanPolicy, logging and auditing a lift with via cli', async () => {
    const dataDir = tempDataDir();
    const { core, logger, events, socket } = await openOn(dataDir);
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
        budget: { ...OPEN_BUDGET, failures: 6 },
      },
    ]);

    const lifted = await converse(path, '{"op":"bans.lift","target":"203.0.113.7"}\n');
    expect(lifted.answers).toEqual([{ ok: true, lifted: [expect.objectContaining({ key: '203.0.113.7' })] }]);
    expect(await core.bans.status('203.0.113.7')).toEqual({ banned: false });
    expect(logger.lines).toContainEqual({
      level: 'info',
      fields: { target: '203.0.113.7', lifted: ['203.0.113.7'], via: 'cli' },
      message: 'bans lifted',
    });
    expect(events).toEqual([{ event: 'ban_lifted', address: null, via: 'cli', target: '203.0.113.7', lifted: ['203.0.113.7'] }]);
    // A lift that matched nothing changed nothing: no event.
    await converse(path, '{"op":"bans.lift","target":"10.0.0.1"}\n');
    expect(events).toHaveLength(1);
  });

  it(
    'bans.list carries the global budget, and bans.reset_budget empties it, leaving bans alone, logged and audited with via cli ' +
      '(issue 31)',
    async () => {
      const { core, logger, events, socket } = await openOn(tempDataDir());
      for (let n = 1; n <= 201; n++) await core.bans.recordFailure(`198.51.100.${n % 250}`);
      for (let n = 0; n < 5; n++) await core.bans.recordFailure('203.0.113.7');
      const path = socket?.path ?? '';
      const [listed] = (await converse(path, '{"op":"bans.list"}\n')).answers as Array<{ budget: unknown }>;
      expect(listed?.budget).toEqual({ limit: 100, failures: 206, state: 'throttled', delay_ms: null, retry_after: 3600 });

      expect((await converse(path, '{"op":"bans.reset_budget"}\n')).answers).toEqual([{ ok: true, cleared: 206, budget: OPEN_BUDGET }]);
      expect(await core.bans.admit('192.0.2.1')).toMatchObject({ kind: 'open' });
      expect(await core.bans.status('203.0.113.7')).toMatchObject({ banned: true });
      expect(logger.lines).toContainEqual({ level: 'info', fields: { cleared: 206, via: 'cli' }, message: 'global failure budget reset' });
      expect(events).toEqual([{ event: 'budget_reset', address: null, via: 'cli', cleared: 206 }]);
    },
  );

  it('creates, lists and revokes keys through the core, auditing each change with via cli and never the key', async () => {
    const { core, logger, events, socket } = await openOn(tempDataDir());
    const path = socket?.path ?? '';
    const created = await converse(path, '{"op":"keys.create","name":"backup","scope":"admin","expires":"90d"}\n');
    expect(created.answers).toEqual([
      {
        ok: true,
        key: expect.stringMatching(/^wk_/),
        created: {
          name: 'backup',
          scope: 'admin',
          created_at: expect.any(String),
          expires_at: expect.any(String),
          last_used_at: null,
          expired: false,
        },
      },
    ]);
    const [answer] = created.answers as Array<{ key: string; created: { created_at: string; expires_at: string } }>;
    expect(Date.parse(answer?.created.expires_at ?? '') - Date.parse(answer?.created.created_at ?? '')).toBe(90 * 86_400_000);
    expect((await core.keys.list()).map((key) => key.name)).toEqual(['backup']);

    const refused = await converse(
      path,
      '{"op":"keys.create","name":"backup","scope":"read","expires":null}\n' +
        '{"op":"keys.create","name":"x","scope":"read","expires":"soon"}\n',
      { lines: 2 },
    );
    expect(refused.answers).toEqual([
      { ok: false, code: 'key_name_taken', detail: expect.stringMatching(/exists/) },
      { ok: false, code: 'invalid_expiry', detail: expect.stringMatching(/90d/) },
    ]);

    expect((await converse(path, '{"op":"keys.list"}\n')).answers).toEqual([
      { ok: true, keys: [expect.objectContaining({ name: 'backup', scope: 'admin' })] },
    ]);
    expect((await converse(path, '{"op":"keys.revoke","name":"nope"}\n')).answers).toEqual([
      { ok: false, code: 'unknown_key', detail: 'No API key is named "nope".' },
    ]);
    expect((await converse(path, '{"op":"keys.revoke","name":"backup"}\n')).answers).toEqual([
      { ok: true, revoked: [expect.objectContaining({ name: 'backup' })] },
    ]);
    expect(await core.keys.list()).toEqual([]);

    expect(events).toEqual([
      { event: 'key_created', address: null, via: 'cli', key: 'backup', scope: 'admin', expires_at: answer?.created.expires_at },
      { event: 'key_revoked', address: null, via: 'cli', key: 'backup' },
    ]);
    expect(JSON.stringify([events, logger.lines])).not.toContain(answer?.key);
  });

  it('revokes every key with one event each', async () => {
    const { core, events, socket } = await openOn(tempDataDir());
    for (const name of ['a', 'b']) await core.keys.create({ name, scope: 'read', lifetimeMs: null });
    const { answers } = await converse(socket?.path ?? '', '{"op":"keys.revoke","all":true}\n{"op":"keys.revoke","all":true}\n', {
      lines: 2,
    });
    expect(answers).toEqual([
      { ok: true, revoked: [expect.objectContaining({ name: 'a' }), expect.objectContaining({ name: 'b' })] },
      { ok: true, revoked: [] },
    ]);
    expect(events.map((event) => event.event === 'key_revoked' && event.key)).toEqual(['a', 'b']);
  });

  it('sets and regenerates the token and changes first setup, never writing the token to a log line, an event or a refusal', async () => {
    const { core, logger, events, socket } = await openOn(tempDataDir());
    const path = socket?.path ?? '';
    const weak = 'weakweakweak';
    const strong = 'Socket-Token_2024!';
    const { answers } = await converse(
      path,
      `${JSON.stringify({ op: 'token.set', token: weak })}\n${JSON.stringify({ op: 'token.set', token: strong })}\n`,
      { lines: 2 },
    );
    expect(answers).toEqual([
      { ok: false, code: 'weak_token', detail: expect.stringMatching(/^The new token needs .*uppercase/) },
      { ok: true },
    ]);
    expect(await core.tokens.verify(strong)).toBe(true);

    const regenerated = await converse(path, '{"op":"token.regenerate"}\n');
    const [fresh] = regenerated.answers as Array<{ ok: true; token: string }>;
    expect(fresh?.token).toMatch(/^[0-9a-f]{64}$/);
    expect(await core.tokens.verify(fresh?.token ?? '')).toBe(true);

    const setup = await converse(path, '{"op":"setup.complete"}\n{"op":"setup.status"}\n{"op":"setup.reset"}\n', { lines: 3 });
    expect(setup.answers).toEqual([
      { ok: true, is_first_setup: false, token_source: 'configured' },
      { ok: true, is_first_setup: false, token_source: 'configured' },
      { ok: true, is_first_setup: true, token_source: 'configured' },
    ]);
    expect(events).toEqual([
      { event: 'token_changed', address: null, via: 'cli', how: 'update' },
      { event: 'token_changed', address: null, via: 'cli', how: 'regenerate' },
      { event: 'setup_completed', address: null, via: 'cli' },
      { event: 'setup_reset', address: null, via: 'cli' },
    ]);
    const said = JSON.stringify([answers[0], events, logger.lines]);
    for (const secret of [weak, strong, fresh?.token ?? '', RECORD.accessToken]) expect(said).not.toContain(secret);
  });

  it('answers a last line without its newline when the client half-closes (nc -U)', async () => {
    const { socket } = await openOn(tempDataDir());
    expect(await converse(socket?.path ?? '', '{"op":"bans.list"}', { end: true })).toEqual({
      answers: [{ ok: true, bans: [], budget: OPEN_BUDGET }],
      closed: true,
    });
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
    spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(lstatSync(path).isSocket()).toBe(true);
    const { socket } = await openOn(dataDir);
    expect(socket).not.toBeNull();
    expect((await converse(path, '{"op":"bans.list"}\n')).answers).toEqual([{ ok: true, bans: [], budget: OPEN_BUDGET }]);
  });

  it('leaves a file that is not a socket alone and runs without the socket, with one warning', async () => {
    const dataDir = tempDataDir();
    writeFileSync(join(dataDir, 'webui.sock'), 'mine');
    const { logger, socket } = await openOn(dataDir);
    expect(socket).toBeNull();
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/cannot open the control socket/) }),
    ]);
  });

  it('runs without the socket when its path is too long, with one warning naming the path', async () => {
    const dataDir = join(tempDataDir(), 'd'.repeat(120));
    const { logger, socket } = await openOn(dataDir);
    expect(socket).toBeNull();
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ path: join(dataDir, 'webui.sock') }) }),
    ]);
  });

  it('is not offered on Windows', () => {
    expect(controlSocketPlace('C:\\webui\\data', 'win32').kind).toBe('unsupported');
  });
});
