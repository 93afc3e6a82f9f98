import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { HttpClient } from '../harness/clients/http-client.js';
import { bunLauncher, cleanupServers, denoLauncher, startServer } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

// The shared suite (projects e2e:bun and e2e:deno) covers the JSON file; this is the --memory quick start
// that only apps/bun and apps/deno offer, so it runs once per runtime in the node project.
describe.each([
  ['bun apps/bun/src/main.ts', bunLauncher],
  ['deno run apps/deno/src/main.ts', denoLauncher],
])('%s --memory', (_name, launcher) => {
  it('serves login, tickets and the WebSocket from memory, writes nothing, and forgets it all on restart', async () => {
    const server = await startServer({ launcher, args: ['--memory'] });
    expect(server.logs().find((line) => line.msg === 'WebUI API listening')?.['dataDir']).toBeNull();
    const token = String(server.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token']);
    const client = new HttpClient(server.baseUrl);
    expect((await client.post('/auth/verify', { body: { token } })).json).toMatchObject({ valid: true, token_source: 'temporary' });
    const ticket = String((await client.get('/ws-token')).json?.['token']);
    const ready = await new Promise<unknown>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api/webui/ws?token=${ticket}`);
      socket.once('message', (data: Buffer) => {
        resolve(JSON.parse(data.toString('utf8')));
        socket.close();
      });
      socket.once('error', reject);
    });
    expect(ready).toMatchObject({ op: 'event', domain: 'system', event: 'ready' });
    expect(existsSync(join(server.cwd, 'data'))).toBe(false);
    expect(await server.stop()).toBe(0);

    const restarted = await startServer({ launcher, args: ['--memory'], cwd: server.cwd });
    const next = restarted.logs().find((line) => line['temporary_token'] !== undefined)?.['temporary_token'];
    expect(next).toEqual(expect.any(String));
    expect(next).not.toBe(token);
  });
});
