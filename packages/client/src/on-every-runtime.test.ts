import { startRedisServer, type RedisServerHandle } from '@webui/store-redis/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleClientScript, startClientScript, type ClientProcess, type Runtime } from './testing/client-process.js';
import { startFaultProxy, type FaultProxy } from './testing/fault-proxy.js';
import { acceptsToken, failLoginsFrom, startWebuiServer, type WebuiServer } from './testing/webui-server.js';

const STRONG_TOKEN = 'Runtime-Test_Token!2024';
const HEX_TOKEN = /^[0-9a-f]{64}$/;
/** Where the test itself logs in from to see which token the server takes: never the address the proxy is banned at. */
const WITNESS_ADDRESS = '127.0.0.60';

let bundleDir = '';
let bundle = '';

beforeAll(() => {
  bundleDir = mkdtempSync(join(tmpdir(), 'webui-client-script-'));
  bundle = bundleClientScript(bundleDir);
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

describe.each<Runtime>(['node', 'bun', 'deno'])('the client on %s, against the real server on Redis behind a fault proxy', (runtime) => {
  let redis: RedisServerHandle;
  let server: WebuiServer;
  let proxy: FaultProxy;
  let script: ClientProcess | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    server = await startWebuiServer({ env: { WEBUI_STORE: redis.url } });
    proxy = await startFaultProxy(server.baseUrl, '127.0.0.51');
  });
  afterAll(async () => {
    script?.kill();
    await proxy?.close();
    await server?.stop();
    await redis?.stop();
  });

  it('never loses a changed token, whatever fails after the change, and aborting leaves no request or socket open', async () => {
    const run = startClientScript(runtime, bundle, [proxy.baseUrl, server.startupToken(), STRONG_TOKEN]);
    script = run;
    expect(await run.reached('start')).toEqual({ valid: true });

    // updateToken's re-login: its connection drops with no answer.
    const drops = proxy.dropEvery('POST', '/auth/verify');
    run.go();
    const dropped = await run.reached('update-dropped');
    expect(drops.stop()).toBeGreaterThan(0);
    expect(dropped).toEqual({ token: STRONG_TOKEN, loggedIn: false, loginError: { name: 'TypeError' } });
    expect(await acceptsToken(server, WITNESS_ADDRESS, STRONG_TOKEN)).toBe(true);
    // The next call logs in by itself with the token the client kept.
    run.go();
    expect(await run.reached('connection-back')).toEqual({ next: 'configured' });

    // regenerateToken's re-login: the same.
    const dropsAgain = proxy.dropEvery('POST', '/auth/verify');
    run.go();
    const regeneratedDropped = await run.reached('regenerate-dropped');
    expect(dropsAgain.stop()).toBeGreaterThan(0);
    expect(regeneratedDropped).toEqual({ token: expect.stringMatching(HEX_TOKEN), loggedIn: false, loginError: { name: 'TypeError' } });
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(regeneratedDropped['token']))).toBe(true);
    run.go();
    expect(await run.reached('connection-back-again')).toEqual({ next: 'configured' });

    // regenerateToken's re-login: the store is gone by the time it arrives, so the server answers 503.
    let held = proxy.holdNext('POST', '/auth/verify');
    run.go();
    const verifyWithoutStore = await held;
    await redis.kill();
    verifyWithoutStore.forward();
    const storeGone = await run.reached('regenerate-store-gone');
    expect(storeGone).toEqual({
      token: expect.stringMatching(HEX_TOKEN),
      loggedIn: false,
      loginError: { name: 'WebuiError', status: 503, code: 'store_unavailable' },
    });
    const printed = server.outputLength();
    await redis.restart();
    await server.waitForOutput('the shared store is reachable again', printed);
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(storeGone['token']))).toBe(true);
    run.go();
    expect(await run.reached('store-back')).toEqual({ next: 'configured' });

    // regenerateToken's re-login: five wrong logins from the proxy's address ban it in between (429).
    held = proxy.holdNext('POST', '/auth/verify');
    run.go();
    const verifyWhileBanned = await held;
    expect(await failLoginsFrom(server, proxy.upstreamAddress, 5)).toEqual([200, 200, 200, 200, 429]);
    verifyWhileBanned.forward();
    const banned = await run.reached('regenerate-banned');
    expect(banned).toEqual({
      token: expect.stringMatching(HEX_TOKEN),
      loggedIn: false,
      loginError: { name: 'WebuiError', status: 429, code: 'too_many_attempts' },
    });
    expect(banned['token']).not.toBe(storeGone['token']);
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(banned['token']))).toBe(true);
    proxy.upstreamAddress = '127.0.0.52';
    run.go();
    expect(await run.reached('ban-elsewhere')).toEqual({ next: 'configured' });

    // regenerateToken aborted while its re-login is held: resolved with the token, the login's socket closed.
    held = proxy.holdNext('POST', '/auth/verify');
    run.go();
    await run.reached('regenerate-login-held');
    const abortedLogin = await held;
    run.go();
    const loginAborted = await run.reached('regenerate-login-aborted');
    expect(loginAborted).toEqual({
      token: expect.stringMatching(HEX_TOKEN),
      loggedIn: false,
      loginError: { name: 'AbortError' },
      next: 'configured',
    });
    await abortedLogin.clientClosed;
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(loginAborted['token']))).toBe(true);

    // regenerateToken aborted while the regenerate request itself is held: the server changes the token only once the
    // request is let through after the abort, and the call still resolves with the token of its answer.
    held = proxy.holdNext('POST', '/auth/regenerate');
    run.go();
    await run.reached('regenerate-held');
    const regenerate = await held;
    run.go();
    await run.reached('regenerate-aborted-while-sent');
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(loginAborted['token']))).toBe(true);
    regenerate.forward();
    run.go();
    const answered = await run.reached('regenerate-answered');
    expect(answered).toEqual({
      token: expect.stringMatching(HEX_TOKEN),
      loggedIn: false,
      loginError: { name: 'AbortError' },
      next: 'configured',
    });
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(answered['token']))).toBe(true);

    // Aborted before anything was sent: rejected, and the token is the same.
    run.go();
    expect(await run.reached('regenerate-aborted-before')).toEqual({ refused: { name: 'AbortError' }, kept: true, next: 'configured' });
    expect(await acceptsToken(server, WITNESS_ADDRESS, String(answered['token']))).toBe(true);

    // Any call aborted while its request is held: AbortError, and the request's socket closed.
    held = proxy.holdNext('GET', '/setup/status');
    run.go();
    await run.reached('status-held');
    const status = await held;
    run.go();
    expect(await run.reached('status-aborted')).toEqual({ name: 'AbortError' });
    await status.clientClosed;

    // The client's timeout: TimeoutError, and the request's socket closed.
    held = proxy.holdNext('GET', '/health');
    run.go();
    expect(await run.reached('health-timed-out')).toEqual({ name: 'TimeoutError' });
    await (
      await held
    ).clientClosed;

    // openChannel aborted while its upgrade is held: AbortError, and the socket closed.
    held = proxy.holdNext('GET', '/ws');
    run.go();
    await run.reached('channel-held');
    const upgrade = await held;
    run.go();
    expect(await run.reached('channel-aborted')).toEqual({ name: 'AbortError' });
    await upgrade.clientClosed;

    // An open channel aborted: closed with 1000, on the server's side too.
    run.go();
    expect(await run.reached('channel-open')).toEqual({ pong: 'number' });
    run.go();
    expect(await run.reached('channel-closed')).toMatchObject({ code: 1000 });
    await proxy.channelsClosed();

    // Nothing the client started keeps the runtime alive.
    expect(await run.exited()).toBe(0);
  }, 90_000);
});
