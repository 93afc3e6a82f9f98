import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewayConfig, startGateway, STAND_IN_TOKEN, STAND_IN_TOKEN_VARIABLE } from '../harness/proxies/gateway.js';
import { cleanupServers, defaultLauncher, makeTempDir, runServerToExit } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams } from '../harness/stand-in-upstream.js';
import { connect } from '../harness/clients/ws-client.js';

/**
 * `webui.upstream.url = "unix:/path"`: the Node server reaches the bot's backend over a Unix socket, for HTTP and the
 * channel alike; Bun and Deno (whose fetch and WebSocket cannot dial one) refuse it at startup with a line naming the key.
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const onNode = defaultLauncher.name === 'node';

describe.runIf(onNode)('a Unix socket upstream on Node', () => {
  it('a GET is forwarded over the socket with the configured cookie, and a chat call is relayed over it', async () => {
    const socketPath = join(makeTempDir('webui-upstream-sock-'), 'bot.sock');
    const upstream = await startStandInUpstream({ token: STAND_IN_TOKEN, socketPath });
    const gateway = await startGateway({ url: `unix:${socketPath}` });

    const answer = await gateway.operator.get('/api/webui/config/bot');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ success: true });
    const [forwarded] = upstream.requestsTo('/api/webui/config/bot');
    expect(forwarded?.headers['cookie']).toContain(`maibot_session=${STAND_IN_TOKEN}`);
    expect(forwarded?.headers['x-webui-principal']).toBe('session');

    const ticket = await gateway.operator.get('/api/webui/ws-token');
    const handshake = await connect(gateway.server, String(ticket.json?.['token']));
    if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
    const client = handshake.client;
    const opened = await client.request({ op: 'call', domain: 'chat', method: 'session.open', session: 'tab-1', data: {} });
    expect(opened).toMatchObject({ op: 'response', ok: true, data: { session: 'tab-1' } });
    await client.waitFor((m) => m['domain'] === 'chat' && m['event'] === 'session_info', 3_000, 'session_info');
    expect(upstream.openSockets).toBe(1);
    client.close();
    await upstream.waitFor(() => upstream.openSockets === 0, 5_000, 'the upstream socket closed with the client');
  });
});

describe.runIf(!onNode)(`a Unix socket upstream on ${defaultLauncher.name}`, () => {
  it('is refused at startup with one clear line naming webui.upstream.url; nothing listens', async () => {
    const socketPath = join(makeTempDir('webui-upstream-sock-'), 'bot.sock');
    const exited = await runServerToExit({
      config: gatewayConfig({ url: `unix:${socketPath}` }),
      env: { [STAND_IN_TOKEN_VARIABLE]: STAND_IN_TOKEN },
    });
    expect(exited.code).not.toBe(0);
    expect(exited.stderr.trim().split('\n')).toEqual([
      `webui: cannot start: webui.upstream.url unix:${socketPath}: a Unix socket upstream is supported on the Node server (apps/server)`,
    ]);
    expect(exited.logs.some((line) => line.msg === 'WebUI API listening')).toBe(false);
  });
});
