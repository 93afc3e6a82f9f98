import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWebui } from '../harness/processes/cli-process.js';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, makeTempDir, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

// `webui bans` is apps/server's CLI over its control socket (Node); not part of the *.e2e suite shared with Bun and Deno.
afterAll(cleanupServers);

const BUDGET = 3;

/** Issue 31, item 5: the operator sees the global failure budget in `webui bans list` and empties it with `webui bans reset-budget`. */
describe('webui bans list and reset-budget against a server whose budget of 3 is spent', () => {
  let server: ServerProcess;
  let token: string;
  const from = (localAddress: string) => new HttpClient(server.baseUrl, { localAddress });
  const verify = (localAddress: string, secret: string) =>
    from(localAddress).post('/auth/verify', { body: { token: secret }, cookie: null });
  const bans = (...args: string[]) => runWebui(server.cwd, ['bans', ...args]);

  beforeAll(async () => {
    server = await startServer({ config: ['[webui]', `global_failure_budget = ${BUDGET}`, ''].join('\n') });
    token = readWebuiFile(server.dataDir).access_token;
    for (let n = 1; n <= 2 * BUDGET; n++)
      expect((await verify(`127.0.0.${100 + n}`, `wrong-guess-${n}`)).json).toMatchObject({ valid: false });
    expectErrorBody(await verify('127.0.0.107', token), 429, 'too_many_attempts');
  }, 30_000);

  it('bans list ends with the budget: spent, and new clients turned away for how long', async () => {
    const run = await bans('list');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const [table, budget] = run.stdout.split('\n\n');
    expect(table?.split('\n')).toHaveLength(1 + 2 * BUDGET);
    expect(budget).toMatch(
      new RegExp(
        String.raw`^global failure budget: 6 of 3 failures in the last hour; ` +
          String.raw`new clients are turned away for (\d+) s \(webui bans reset-budget clears it\)\n$`,
      ),
    );
    const seconds = Number(/for (\d+) s/.exec(budget ?? '')?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(3600);
  });

  it('bans list --json carries it as budget', async () => {
    const run = await bans('list', '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(run.stdout) as { bans: unknown[]; budget: Record<string, unknown> };
    expect(printed.bans).toHaveLength(2 * BUDGET);
    expect(printed.budget).toEqual({
      limit: BUDGET,
      failures: 2 * BUDGET,
      state: 'throttled',
      delay_ms: null,
      retry_after: expect.any(Number),
    });
  });

  it(
    'bans reset-budget forgets the failures, says how many, and a new client logs in at once; the addresses keep ' + 'their counts',
    async () => {
      const run = await bans('reset-budget');
      expect(run).toEqual({
        code: 0,
        stdout:
          'global failure budget reset: 6 failures forgotten\nglobal failure budget: 0 of 3 failures in the last hour; new clients ' +
          'are let in\n',
        stderr: '',
      });
      expect((await verify('127.0.0.108', token)).json).toMatchObject({ valid: true });
      const listed = JSON.parse((await bans('list', '--json')).stdout) as { bans: unknown[]; budget: Record<string, unknown> };
      expect(listed.bans).toHaveLength(2 * BUDGET);
      expect(listed.budget).toMatchObject({ failures: 0, state: 'open' });

      await server.waitForLog((line) => line.msg === 'global failure budget reset' && line['via'] === 'cli' && line['cleared'] === 6);
      const audit = readFileSync(join(server.dataDir, 'audit.log'), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(audit.filter((line) => line['event'] === 'budget_reset')).toEqual([
        { time: expect.any(String), event: 'budget_reset', address: null, via: 'cli', cleared: 6 },
      ]);
    },
  );

  it('with no server on the default store there is nothing to reset: exit 1', async () => {
    const run = await runWebui(makeTempDir(), ['bans', 'reset-budget']);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(
      /^nothing reset: no server is running on .*, and the global failure budget lives only in a running server's memory\n$/,
    );
  });
});
