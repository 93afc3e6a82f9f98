import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../harness/error-body.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { createServer } from 'node:net';
import { cleanupServers, freePort, runServerToExit, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';
import { connect } from '../harness/clients/ws-client.js';
import { startGateway, STAND_IN_TOKEN } from '../harness/proxies/gateway.js';
import { startStandInUpstream, stopAllStandInUpstreams } from '../harness/stand-in-upstream.js';

afterAll(async () => {
  await cleanupServers();
  await stopAllStandInUpstreams();
});

/** The value of one series in a Prometheus text answer (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /api/webui/metrics and [webui] metrics_port', () => {
  let server: ServerProcess;
  let metricsPort: number;
  let operator: HttpClient;

  beforeAll(async () => {
    metricsPort = await freePort();
    server = await startServer({ config: `[webui]\nmetrics_port = ${metricsPort}\n` });
    operator = new HttpClient(server.baseUrl);
    const login = await operator.post('/auth/verify', { body: { token: readWebuiFile(server.dataDir).access_token } });
    expect(login.json).toMatchObject({ valid: true });
  });

  const scrape = async () => {
    const response = await operator.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return response.text;
  };

  it('moves each counter after a login, a failed login and a ban, with no address or secret in any label', async () => {
    const before = await scrape();
    expect(sample(before, 'webui_logins_total{outcome="succeeded",how="verify"}')).toBe(1);
    expect(sample(before, 'webui_bans_active')).toBe(0);

    const guesser = new HttpClient(server.baseUrl, { localAddress: '127.0.0.9' });
    for (let i = 0; i < 5; i++) await guesser.post('/auth/verify', { body: { token: `wrong-guess-${i}` } });
    const after = await scrape();
    expect(sample(after, 'webui_logins_total{outcome="failed",how="verify"}')).toBe(5);
    expect(sample(after, 'webui_bans_started_total{how="verify"}')).toBe(1);
    expect(sample(after, 'webui_bans_active')).toBe(1);
    expect(sample(after, 'webui_global_failure_budget_failures')).toBe(5);
    expect(sample(after, 'webui_global_failure_budget_limit')).toBe(100);
    expect(sample(after, 'webui_global_failure_budget_state{state="open"}')).toBe(1);
    expect(sample(after, 'webui_store_available')).toBe(1);
    // The file store's writes are timed: the temporary token written at startup is one.
    expect(sample(after, 'webui_store_operation_seconds_count{operation="swapRecord"}')).toBeGreaterThanOrEqual(1);
    expect(after).not.toMatch(/127\.0\.0\.9|wrong-guess/);
    expect(after).not.toContain(readWebuiFile(server.dataDir).access_token);
  });

  it('counts tickets issued and redeemed and the open sockets', async () => {
    const ticket = await operator.get('/ws-token');
    const handshake = await connect(server, String(ticket.json?.['token']));
    expect(handshake.opened).toBe(true);
    const text = await scrape();
    expect(sample(text, 'webui_ws_tickets_issued_total')).toBe(1);
    expect(sample(text, 'webui_ws_tickets_redeemed_total')).toBe(1);
    expect(sample(text, 'webui_websocket_connections')).toBe(1);
    if (handshake.opened) handshake.client.close();
  });

  it('answers the token session and an admin key only: a read key 403, no credential 401', async () => {
    const created = async (scope: string) =>
      String((await operator.post('/keys', { body: { name: `prometheus-${scope}`, scope, expires: null } })).json?.['key']);
    const admin = new HttpClient(server.baseUrl);
    expect((await admin.get('/metrics', { headers: { authorization: `Bearer ${await created('admin')}` }, cookie: null })).status).toBe(
      200,
    );
    expectErrorBody(
      await admin.get('/metrics', { headers: { authorization: `Bearer ${await created('read')}` }, cookie: null }),
      403,
      'insufficient_scope',
    );
    expectErrorBody(await new HttpClient(server.baseUrl).get('/metrics'), 401);
  });

  it('serves the same text on metrics_port without a credential, to loopback names only', async () => {
    const local = new HttpClient(`http://127.0.0.1:${metricsPort}`, { prefix: '' });
    const answer = await local.get('/metrics');
    expect(answer.status).toBe(200);
    expect(sample(answer.text, 'webui_bans_active')).toBe(1);
    expectErrorBody(await local.get('/metrics', { headers: { host: 'rebound.example:9464' } }), 403, 'host_not_allowed');
    expectErrorBody(await local.get('/other'), 404, 'not_found');
    expect(server.logs()).toContainEqual(expect.objectContaining({ msg: 'metrics listening (webui.metrics_port)' }));
  });
});

describe('[webui] metrics_port in use', () => {
  it('stops the start with one line naming the key and the file, leaving nothing listening', async () => {
    const taken = createServer();
    const port = await new Promise<number>((resolve) =>
      taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)),
    );
    try {
      const run = await runServerToExit({ config: `[webui]\nmetrics_port = ${port}\n` });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`webui\\.metrics_port ${port} in .*bot_config\\.toml: cannot listen on 127\\.0\\.0\\.1:${port}.*in use`),
      );
    } finally {
      taken.close();
    }
  });
});

describe('forwarded requests in front of the bot backend', () => {
  it('are counted by the status the upstream answered, and as "error" when it gave none', async () => {
    const upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
    const { operator } = await startGateway({ url: upstream.url });
    expect((await operator.get('/api/webui/config/bot')).status).toBe(200);
    expect((await operator.get('/api/webui/config/bot')).status).toBe(200);
    await upstream.close();
    expect((await operator.get('/api/webui/config/bot')).status).toBe(502);
    const text = (await operator.get('/api/webui/metrics')).text;
    expect(sample(text, 'webui_upstream_requests_total{code="200"}')).toBe(2);
    expect(sample(text, 'webui_upstream_requests_total{code="error"}')).toBe(1);
  });
});
