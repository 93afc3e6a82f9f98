import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewayConfig, STAND_IN_TOKEN, STAND_IN_TOKEN_VARIABLE } from '../harness/proxies/gateway.js';
import { cleanupServers, makeTempDir, runServerToExit } from '../harness/processes/server-process.js';

/**
 * The gateway's own reasons not to start (@webui/gateway's GatewayStartupError) reach the operator as every other startup error
 * does: one line on stderr, nothing listening.
 */

afterAll(cleanupServers);

describe('the gateway at startup', () => {
  it('refuses an upstream assertion key file of the wrong size with one line naming it, and leaves the file as it is', async () => {
    const cwd = makeTempDir('webui-gateway-key-');
    const dataDir = join(cwd, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const keyFile = join(dataDir, 'upstream-assertion.key');
    writeFileSync(keyFile, new Uint8Array(3).fill(7), { mode: 0o600 });
    const exited = await runServerToExit({
      cwd,
      args: ['--data-dir', dataDir],
      config: gatewayConfig({ url: 'http://127.0.0.1:9' }),
      env: { [STAND_IN_TOKEN_VARIABLE]: STAND_IN_TOKEN },
    });
    expect(exited.code).not.toBe(0);
    expect(exited.stderr.trim().split('\n')).toEqual([
      `webui: cannot start: ${keyFile} holds 3 bytes, not the 32 of an upstream assertion key; ` +
        'remove it and a new one is made (an upstream that verifies the assertion then needs the new one)',
    ]);
    expect(exited.logs.some((line) => line.msg === 'WebUI API listening')).toBe(false);
    expect(new Uint8Array(readFileSync(keyFile))).toEqual(new Uint8Array(3).fill(7));
  });
});
