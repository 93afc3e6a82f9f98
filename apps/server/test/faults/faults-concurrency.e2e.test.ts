import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bundleChildScript } from '../harness/processes/child-script.js';
import { HttpClient } from '../harness/clients/http-client.js';
import {
  canJudgeOtherProcesses,
  cleanupServers,
  makeTempDir,
  runServerToExit,
  startServer,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { dataDirFiles, readWebuiFile, webuiFilePath } from '../harness/webui-file.js';

afterAll(cleanupServers);

const RUNTIME = process.env['WEBUI_E2E_RUNTIME'] ?? 'node';
// Where '@webui/store-json' resolves for the script bundled below: apps/server depends on it.

const cookieOf = (token: string) => `bot_session=${encodeURIComponent(token)}`;
const lockPath = (dataDir: string) => join(dataDir, 'webui.lock');
const lockOwner = (dataDir: string) => Number.parseInt(readFileSync(lockPath(dataDir), 'utf8').trim(), 10);

/** A pid no process has right now. */
function deadPid(): number {
  for (let pid = 32_000; pid > 2; pid--) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid found');
}

describe('concurrency: 100 parallel token updates', () => {
  afterEach(cleanupServers);

  it('end with exactly one of the new tokens in a whole file, that one valid, and no write lost', async () => {
    const server = await startServer({ args: ['--host', '127.0.0.1'] });
    const temporary = readWebuiFile(server.dataDir).access_token;
    const client = new HttpClient(server.baseUrl);
    const tokens = Array.from({ length: 100 }, (_, i) => `Parallel-${i}-${Math.random().toString(36).slice(2, 10)}!Zz`);

    // The setup flag is written by the same read-modify-write path: an update must not write back a stale flag.
    const [setup, ...answers] = await Promise.all([
      client.post('/setup/complete', { cookie: cookieOf(temporary) }),
      ...tokens.map((token) => client.post('/auth/update', { body: { new_token: token }, cookie: cookieOf(temporary) })),
    ]);

    const statuses = answers.map((answer) => answer.status);
    // Those that found the token already replaced are 401s; nothing else, never a 5xx.
    expect(new Set(statuses.filter((status) => status !== 200 && status !== 401))).toEqual(new Set());
    const acknowledged = tokens.filter((_token, i) => statuses[i] === 200);
    expect(acknowledged.length).toBeGreaterThanOrEqual(1);

    const text = readFileSync(webuiFilePath(server.dataDir), 'utf8');
    const file = JSON.parse(text) as Record<string, unknown>;
    // Exactly one whole record: the known fields once, nothing spliced in from another write.
    expect(Object.keys(file).sort()).toEqual(['access_token', 'first_setup_completed', 'token_source']);
    expect(text).toBe(`${JSON.stringify(file, null, 2)}\n`);
    expect(acknowledged).toContain(file['access_token']);
    expect(file['token_source']).toBe('configured');
    if (setup?.status === 200) expect(file['first_setup_completed']).toBe(true);
    expect(dataDirFiles(server.dataDir)).toEqual(['webui.json', 'webui.lock']);

    // The token in the file is the one in force; the temporary one and every other new one are not.
    const fresh = new HttpClient(server.baseUrl, { localAddress: '127.0.0.30' });
    expect((await fresh.post('/auth/verify', { body: { token: file['access_token'] } })).json).toMatchObject({
      valid: true,
      token_source: 'configured',
    });
    const loser = tokens.find((token) => token !== file['access_token']) as string;
    expect((await fresh.post('/auth/verify', { body: { token: loser } })).json).toMatchObject({ valid: false });
    expect((await fresh.post('/auth/verify', { body: { token: temporary } })).json).toMatchObject({ valid: false });
  });
});

describe('one server per data directory (data/webui.lock)', () => {
  afterEach(cleanupServers);

  it('a second server on the same data directory refuses to start with a message naming the lock, and the first is untouched', async () => {
    const first = await startServer({ args: ['--host', '127.0.0.1'] });
    const before = readFileSync(webuiFilePath(first.dataDir), 'utf8');
    expect(lockOwner(first.dataDir)).toBe(first.pid);

    const second = await runServerToExit({ cwd: first.cwd, args: ['--host', '127.0.0.1'] });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another server (pid ${first.pid})`);
    expect(second.stderr).toContain(lockPath(first.dataDir));
    expect(second.logs.some((line) => line.msg === 'WebUI API listening')).toBe(false);

    expect(readFileSync(webuiFilePath(first.dataDir), 'utf8')).toBe(before);
    expect(lockOwner(first.dataDir)).toBe(first.pid);
    const token = readWebuiFile(first.dataDir).access_token;
    expect((await new HttpClient(first.baseUrl).post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true });
  });

  it('a clean stop removes the lock', async () => {
    const server = await startServer({ args: ['--host', '127.0.0.1'] });
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(dataDirFiles(server.dataDir)).toEqual(['webui.json']);
  });

  it.runIf(!canJudgeOtherProcesses())(
    'a runtime that may not look at other processes refuses a lock it cannot judge, names the file, and starts once it is removed',
    async () => {
      const killed = await startServer({ args: ['--host', '127.0.0.1'] });
      expect(await killed.stop('SIGKILL')).toBeNull();
      const refused = await runServerToExit({ cwd: killed.cwd, args: ['--host', '127.0.0.1'] });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`another server (pid ${killed.pid})`);
      expect(refused.stderr).toContain(`remove the lock file ${lockPath(killed.dataDir)}`);
      rmSync(lockPath(killed.dataDir));
      const restarted = await startServer({ cwd: killed.cwd, args: ['--host', '127.0.0.1'] });
      expect(lockOwner(restarted.dataDir)).toBe(restarted.pid);
    },
  );

  it.runIf(canJudgeOtherProcesses())(
    'the stale lock of a SIGKILLed server does not block a restart, which takes the lock over',
    async () => {
      const killed = await startServer({ args: ['--host', '127.0.0.1'] });
      const token = readWebuiFile(killed.dataDir).access_token;
      expect(await killed.stop('SIGKILL')).toBeNull();
      expect(lockOwner(killed.dataDir)).toBe(killed.pid);

      const restarted = await startServer({ cwd: killed.cwd, args: ['--host', '127.0.0.1'] });
      expect(lockOwner(restarted.dataDir)).toBe(restarted.pid);
      // A temporary token is renewed at every start; the file and the server agree on the new one.
      const renewed = readWebuiFile(restarted.dataDir).access_token;
      expect(renewed).not.toBe(token);
      expect((await new HttpClient(restarted.baseUrl).post('/auth/verify', { body: { token: renewed } })).json).toMatchObject({
        valid: true,
      });
    },
  );

  const staleLocks: Array<[string, () => string]> = [
    ['an empty lock file', () => ''],
    ['garbage', () => 'not a pid\n'],
  ];
  if (canJudgeOtherProcesses()) staleLocks.unshift(['the pid of a process that is gone', () => `${deadPid()}\n`]);
  it.each(staleLocks)('a lock holding %s is stale', async (_label, content) => {
    const cwd = makeTempDir();
    const dataDir = join(cwd, 'data');
    const first = await startServer({ cwd, args: ['--host', '127.0.0.1'] });
    await first.stop('SIGKILL');
    writeFileSync(lockPath(dataDir), content());
    const server = await startServer({ cwd, args: ['--host', '127.0.0.1'] });
    expect(lockOwner(dataDir)).toBe(server.pid);
  });

  it.runIf(canJudgeOtherProcesses())(
    'a lock whose pid now belongs to a process started after the lock was written (pid reuse, a reboot) is stale',
    async () => {
      const cwd = makeTempDir();
      const dataDir = join(cwd, 'data');
      const first = await startServer({ cwd, args: ['--host', '127.0.0.1'] });
      await first.stop('SIGKILL');
      // Another program now has a pid the lock names; the lock was written before that program started.
      const other = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        writeFileSync(lockPath(dataDir), `${other.pid}\n`);
        const past = new Date(Date.now() - 60_000);
        utimesSync(lockPath(dataDir), past, past);
        const server = await startServer({ cwd, args: ['--host', '127.0.0.1'] });
        expect(lockOwner(dataDir)).toBe(server.pid);
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it.runIf(canJudgeOtherProcesses())(
    'of two servers started at the same moment on one data directory with a stale lock, exactly one runs',
    { timeout: 90_000 },
    async () => {
      for (let round = 0; round < 6; round++) {
        const cwd = makeTempDir();
        const dataDir = join(cwd, 'data');
        const seed = await startServer({ cwd, args: ['--host', '127.0.0.1'] });
        await seed.stop('SIGKILL');
        const results = await Promise.allSettled([
          startServer({ cwd, args: ['--host', '127.0.0.1'] }),
          startServer({ cwd, args: ['--host', '127.0.0.1'] }),
        ]);
        const running = results
          .filter((result): result is PromiseFulfilledResult<ServerProcess> => result.status === 'fulfilled')
          .map((result) => result.value);
        const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
        expect(
          running.map((server) => server.pid),
          `round ${round}`,
        ).toHaveLength(1);
        expect(String(refused[0]?.reason)).toMatch(/another server \(pid \d+\)/);
        expect(lockOwner(dataDir)).toBe(running[0]?.pid);
        expect(statSync(lockPath(dataDir)).isFile()).toBe(true);
        await cleanupServers();
      }
    },
  );
});

/**
 * Starting servers cannot be timed to the microsecond, so the lock itself is raced: three processes
 * take the lock of the same directories at the same instants, each holding what it got until the end.
 */
describe.skipIf(RUNTIME !== 'node')('the lock under simultaneous starts', () => {
  const ROUNDS = 40;
  const SPACING_MS = 40;

  async function race(stale: boolean): Promise<string[][]> {
    const root = makeTempDir('webui-lock-race-');
    const script = join(root, 'take-locks.mjs');
    await bundleChildScript(
      `
          import { InstanceLock } from '@webui/store-json';
          const [root, start, rounds, spacing] = process.argv.slice(2);
          const results = [];
          for (let round = 0; round < Number(rounds); round++) {
            const at = Number(start) + round * Number(spacing);
            while (Date.now() < at) {}
            try { InstanceLock.acquire(root + '/d' + round); results.push('owner'); }
            catch (error) { results.push(/another server/.test(error.message) ? 'refused' : 'error: ' + error.message); }
          }
          process.stdout.write(JSON.stringify(results) + '\\n');
          process.stdin.resume();
          process.stdin.on('end', () => process.exit(0));
        `,
      script,
    );
    for (let round = 0; round < ROUNDS; round++) {
      mkdirSync(join(root, `d${round}`), { mode: 0o700 });
      if (stale) writeFileSync(join(root, `d${round}`, 'webui.lock'), `${deadPid()}\n`);
    }
    const start = Date.now() + 1_500;
    const children = Array.from({ length: 3 }, () =>
      spawn(process.execPath, [script, root, String(start), String(ROUNDS), String(SPACING_MS)], { stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    // Every child stays alive, holding its locks, until all have reported: an owner that exited would make its lock stale for real.
    const reports = await Promise.all(
      children.map(
        (child) =>
          new Promise<string[]>((resolve, reject) => {
            let out = '';
            child.stdout.on('data', (chunk: Buffer) => {
              out += chunk.toString();
              if (out.includes('\n')) resolve(JSON.parse(out) as string[]);
            });
            child.once('exit', (code) => reject(new Error(`lock child exited early (${code})`)));
          }),
      ),
    );
    await Promise.all(children.map((child) => new Promise((resolve) => (child.once('close', resolve), child.stdin.end()))));
    return Array.from({ length: ROUNDS }, (_, round) => reports.map((report) => report[round] as string));
  }

  it.each([
    ['a fresh data directory', false],
    ['a data directory with a stale lock', true],
  ])('%s: three starters at the same instant, exactly one owner every time', { timeout: 60_000 }, async (_label, stale) => {
    const rounds = await race(stale);
    const wrong = rounds
      .map((outcomes, round) => ({ round, outcomes }))
      .filter(({ outcomes }) => outcomes.filter((o) => o === 'owner').length !== 1 || outcomes.some((o) => o.startsWith('error')));
    expect(wrong).toEqual([]);
  });
});
