import { createCore, type Clock } from '@webui/core';
import { MemoryShortLivedState } from '@webui/core/memory';
import { SeededRandom } from '@webui/core/testing';
import { createWebuiApp, type AppLogger, type HttpPolicy } from '@webui/http-hono';
import { JsonFileStore, nodeFileSystem, type FileSystem } from '@webui/store-json';
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupServers, makeTempDir } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

// In-process: the whole stack (Hono app, core, JsonFileStore on real files) with a file system that fails on cue.
const RUNTIME = process.env['WEBUI_E2E_RUNTIME'] ?? 'node';

const OLD = 'Old-Token!Before-Disk-Full';
const NEW = 'New-Token!Never-Written';
const OLD_RECORD = { access_token: OLD, token_source: 'configured', first_setup_completed: false, operator_note: 'kept' };
const OLD_CONTENT = `${JSON.stringify(OLD_RECORD, null, 2)}\n`;

function failure(code: string): Error {
  return Object.assign(new Error(`${code}: simulated failure`), { code });
}

type Fault = 'ENOSPC while writing' | 'EROFS on open' | 'EIO on fsync' | 'EACCES on rename';
const isTempFile = (path: string) => path.includes('.tmp-');

/** The node file system, except that writes of the token file fail the way `fault()` says, when it says. */
function failingFileSystem(fault: () => Fault | null): FileSystem {
  return {
    ...nodeFileSystem,
    open: async (path, flags, mode) => {
      const now = fault();
      if (now === 'EROFS on open' && isTempFile(path)) throw failure('EROFS');
      const real = await nodeFileSystem.open(path, flags, mode);
      if (!isTempFile(path)) return real;
      return {
        writeFile: async (data) => {
          if (fault() !== 'ENOSPC while writing') return real.writeFile(data);
          // A full disk fails part-way: some bytes land first.
          await real.writeFile(data.slice(0, 7));
          throw failure('ENOSPC');
        },
        sync: async () => (fault() === 'EIO on fsync' ? Promise.reject(failure('EIO')) : real.sync()),
        close: () => real.close(),
      };
    },
    rename: async (from, to) => (fault() === 'EACCES on rename' ? Promise.reject(failure('EACCES')) : nodeFileSystem.rename(from, to)),
  };
}

class RecordingLogger implements AppLogger {
  readonly errors: Array<{ fields: object; message: string }> = [];
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(fields: object, message: string): void {
    this.errors.push({ fields, message });
  }
}

const policy: HttpPolicy = {
  serviceName: 'webui',
  mode: 'development',
  secureCookie: false,
  sessionExpireDays: 7,
  trustedProxies: [],
  allowedIps: [],
  allowedOrigins: [],
  allowedHosts: [],
  listenOrigins: () => ['http://127.0.0.1:8001'],
  loopbackOnly: true,
};
const clock: Clock = { now: () => Date.now() };

async function stackOver(dataDir: string, fs: FileSystem) {
  const store = new JsonFileStore({ dataDir, clock, fs });
  await store.open();
  const services = createCore({ store: new MemoryShortLivedState(clock).storeWith(store), clock, random: new SeededRandom(7) });
  expect((await services.tokens.bootstrap()).reason).toBe('kept');
  const logger = new RecordingLogger();
  const app = createWebuiApp({
    services,
    policy,
    runtime: { getConnInfo: () => ({ remote: { address: '127.0.0.9' } }) },
    logger,
  });
  const request = async (path: string, init: { cookie?: string; json?: unknown; method?: string } = {}) => {
    const headers: Record<string, string> = { host: '127.0.0.1:8001' };
    if (init.cookie !== undefined) headers['cookie'] = `bot_session=${encodeURIComponent(init.cookie)}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const response = await app.request(`http://127.0.0.1:8001/api/webui${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      setCookie: response.headers.getSetCookie(),
      json: JSON.parse(text) as Record<string, unknown>,
    };
  };
  return { store, logger, request };
}

describe.skipIf(RUNTIME !== 'node')('a disk that is full or read-only when a request writes the token file', () => {
  let dataDir: string;
  const file = () => join(dataDir, 'webui.json');

  beforeEach(() => {
    dataDir = join(makeTempDir('webui-disk-'), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(file(), OLD_CONTENT, { mode: 0o600 });
  });

  it.each<Fault>(['ENOSPC while writing', 'EROFS on open', 'EIO on fsync', 'EACCES on rename'])(
    '%s: /auth/update answers 500 with the error body (docs/decisions/0001-error-bodies.md), the old token keeps working, nothing is half-written',
    async (fault) => {
      let failing: Fault | null = fault;
      const { store, logger, request } = await stackOver(
        dataDir,
        failingFileSystem(() => failing),
      );

      const update = await request('/auth/update', { cookie: OLD, json: { new_token: NEW } });
      expect(update.status).toBe(500);
      expect(update.contentType).toMatch(/^application\/json/);
      expect(update.json).toEqual({ detail: expect.stringMatching(/\S/), code: 'internal_error' });
      // The session is still good, so it is not cleared.
      expect(update.setCookie.filter((line) => line.startsWith('bot_session='))).toEqual([]);
      expect(logger.errors.map((entry) => entry.message)).toContain('request failed');

      // The other writers fail the same way and change nothing either.
      expect((await request('/auth/regenerate', { cookie: OLD, method: 'POST' })).status).toBe(500);
      expect((await request('/setup/complete', { cookie: OLD, method: 'POST' })).status).toBe(500);

      expect(readFileSync(file(), 'utf8')).toBe(OLD_CONTENT);
      expect(readdirSync(dataDir)).toEqual(['webui.json']);
      expect((await request('/auth/verify', { json: { token: OLD } })).json).toMatchObject({
        valid: true,
        is_first_setup: true,
        token_source: 'configured',
      });
      expect((await request('/auth/verify', { json: { token: NEW } })).json).toMatchObject({ valid: false });
      expect((await request('/setup/status', { cookie: OLD })).json).toMatchObject({ is_first_setup: true });

      // Space again: the same request succeeds, and the operator's unknown field survives.
      failing = null;
      expect((await request('/auth/update', { cookie: OLD, json: { new_token: NEW } })).status).toBe(200);
      expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({
        access_token: NEW,
        token_source: 'configured',
        first_setup_completed: false,
        operator_note: 'kept',
      });
      expect((await request('/auth/verify', { json: { token: NEW } })).json).toMatchObject({ valid: true });
      await store.close();
    },
  );
});
