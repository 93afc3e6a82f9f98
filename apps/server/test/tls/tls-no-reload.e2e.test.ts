import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canReloadCertificates,
  cleanupServers,
  defaultLauncher,
  makeTempDir,
  startServer,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { servedSerial, TestCa, type Issued } from '../harness/test-ca.js';

const NO_RELOAD = `TLS reload is not supported on ${defaultLauncher.name === 'bun' ? 'Bun' : 'Deno'}: restart the server to serve a new certificate`;

/** curl with the test CA: the answer's status, the protocol curl ended up speaking, and the answer's headers. */
function curl(url: string, caPath: string): { status: number; version: string; headers: string } {
  const out = String(
    execFileSync('curl', ['-sS', '-D', '-', '-o', '/dev/null', '--cacert', caPath, '-w', '%{http_code} %{http_version}', url]),
  );
  const [status, version] = (out.split('\n').at(-1) as string).split(' ');
  return { status: Number(status), version: version as string, headers: out.toLowerCase() };
}

// Bun and Deno serve HTTPS from the same settings but cannot swap a certificate in place (docs/https.md#on-bun-and-deno):
// they say so, and keep serving the first one. Node's reloads are in tls.e2e.test.ts.
describe.skipIf(canReloadCertificates())('HTTPS on a runtime that cannot reload a certificate', () => {
  let ca: TestCa;
  let first: Issued;
  let paths: { cert: string; key: string };
  let server: ServerProcess;

  beforeAll(async () => {
    const dir = makeTempDir('webui-tls-');
    ca = await TestCa.create(dir);
    first = await ca.issue();
    paths = { cert: join(dir, 'served.pem'), key: join(dir, 'served.key') };
    TestCa.place(first, paths);
    server = await startServer({ config: '[webui.tls]\nhsts = true\n', args: ['--tls-cert', paths.cert, '--tls-key', paths.key] });
  });

  afterAll(cleanupServers);

  it('serves HTTPS with the named pair, Strict-Transport-Security on every answer', async () => {
    expect(await servedSerial(server.port)).toBe(first.serial);
    // Deno offers HTTP/2, which curl takes: the answer is the same, the Host the app checks comes from :authority.
    for (const [path, status] of [
      ['/api/webui/health', 200],
      ['/api/webui/auth/check', 200],
      ['/api/webui/keys', 401],
    ] as const) {
      const answer = curl(`https://localhost:${server.port}${path}`, ca.caCert);
      expect(answer.status, path).toBe(status);
      expect(answer.headers, path).toContain('strict-transport-security: max-age=31536000');
    }
    expect(curl(`https://localhost:${server.port}/api/webui/health`, ca.caCert).version).toBe(
      defaultLauncher.name === 'deno' ? '2' : '1.1',
    );
  });

  it('says at startup, once, that it cannot reload a certificate', async () => {
    // Logged right after the listening line: it may still be in the pipe.
    await server.waitForLog((line) => line.msg === NO_RELOAD);
    expect(server.logs().filter((line) => line.msg === NO_RELOAD)).toEqual([expect.objectContaining({ level: 40 })]);
  });

  it('on SIGHUP says it again, keeps running and serves the certificate it started with', async () => {
    TestCa.place(await ca.issue(), paths);
    process.kill(server.pid, 'SIGHUP');
    await expect.poll(() => server.logs().filter((line) => line.msg === NO_RELOAD).length).toBe(2);
    expect(curl(`https://localhost:${server.port}/api/webui/health`, ca.caCert).status).toBe(200);
    expect(await servedSerial(server.port)).toBe(first.serial);
  });
});
