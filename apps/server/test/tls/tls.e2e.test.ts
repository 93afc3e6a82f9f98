import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { runWebui } from '../harness/processes/cli-process.js';
import { startIdentityEchoBackend } from '../harness/proxies/identity-echo-backend.js';
import {
  canReloadCertificates,
  cleanupServers,
  makeTempDir,
  runServerToExit,
  startServer,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { servedSerial, TestCa, type Issued } from '../harness/test-ca.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * HTTPS without a proxy (issue 46, docs/https.md) against the real server: a CA and leaves made with openssl, checked with
 * curl --cacert, Node's https and openssl s_client; reloads by SIGHUP, by the file changing and by `webui tls reload` while a
 * connection opened before keeps answering; each pair that cannot serve at startup; plain HTTP to the TLS port; the Secure
 * cookie; wss:// with a ticket.
 */

afterAll(cleanupServers);

const run = promisify(execFile);
let ca: TestCa;
let ca2: TestCa;

beforeAll(async () => {
  ca = await TestCa.create(makeTempDir('webui-tls-ca-'));
  // A second authority: a key of its leaves never matches a certificate of the first's.
  ca2 = await TestCa.create(makeTempDir('webui-tls-ca2-'));
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request over Node's https, trusting only the test CA. */
function httpsGet(port: number, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, ca: readFileSync(ca.caCert), servername: 'localhost' }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A server serving `issued` from files in its own directory, which the test may replace. */
async function serverWith(
  issued: Issued,
  tlsKeys = '',
  webuiKeys = '',
  otherTables = '',
): Promise<{ server: ServerProcess; paths: { cert: string; key: string } }> {
  const cwd = makeTempDir();
  const paths = { cert: join(cwd, 'fullchain.pem'), key: join(cwd, 'privkey.pem') };
  TestCa.place(issued, paths);
  const server = await startServer({
    cwd,
    config: `[webui]\n${webuiKeys}\n[webui.tls]\ncert = "fullchain.pem"\nkey = "privkey.pem"\n${tlsKeys}\n${otherTables}`,
  });
  return { server, paths };
}

/**
 * One TLS connection kept open, asking /health over HTTP/1.1 keep-alive: `ask()` sends a request on it and resolves with the
 * answer's status line; `closed` says whether the server ever hung up. A timer asks too, so the test's request and the
 * timer's may be in flight at once: answers come back in order, each to the ask that sent its request, and one chunk may
 * hold several.
 */
async function keptConnection(port: number) {
  const socket: TLSSocket = tlsConnect({ host: '127.0.0.1', port, ca: readFileSync(ca.caCert), servername: 'localhost' });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  let closed = false;
  socket.on('close', () => (closed = true));
  let buffered = '';
  const waiting: ((line: string) => void)[] = [];
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    // One small JSON answer per request: complete once its body (Content-Length) is in.
    for (;;) {
      const head = buffered.indexOf('\r\n\r\n');
      const length = head < 0 ? undefined : /content-length: (\d+)/i.exec(buffered.slice(0, head))?.[1];
      if (length === undefined || buffered.length < head + 4 + Number(length)) return;
      const statusLine = buffered.slice(0, buffered.indexOf('\r\n'));
      buffered = buffered.slice(head + 4 + Number(length));
      waiting.shift()?.(statusLine);
    }
  });
  const ask = () =>
    new Promise<string>((resolve) => {
      waiting.push(resolve);
      socket.write('GET /api/webui/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    });
  // Kept busy, so the keep-alive timeout never ends it between the test's steps.
  const timer = setInterval(() => void ask(), 1_000);
  return {
    ask,
    closed: () => closed,
    serial: () => socket.getPeerCertificate().serialNumber,
    end() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('a certificate from files', () => {
  let server: ServerProcess;
  let paths: { cert: string; key: string };
  let first: Issued;

  beforeAll(async () => {
    first = await ca.issue();
    ({ server, paths } = await serverWith(first, 'hsts = true\n'));
  });

  it('answers curl --cacert and Node https over TLS, announcing https:// addresses', async () => {
    expect(server.addresses).toContain(`https://127.0.0.1:${server.port}`);
    expect(server.stderr()).toContain(`https://127.0.0.1:${server.port}/api/webui`);
    const curl = await run('curl', ['--silent', '--cacert', ca.caCert, `https://localhost:${server.port}/api/webui/health`]);
    expect(JSON.parse(curl.stdout)).toMatchObject({ status: 'healthy' });
    const answer = await httpsGet(server.port, '/api/webui/health');
    expect(answer.status).toBe(200);
    expect(answer.headers['strict-transport-security']).toBe('max-age=31536000');
    // The /auth/check fast path answers with the same header.
    expect((await httpsGet(server.port, '/api/webui/auth/check')).headers['strict-transport-security']).toBe('max-age=31536000');
  });

  // Bun and Deno cannot swap a served certificate: tls-no-reload.e2e.test.ts holds what they do instead (docs/https.md).
  it.runIf(canReloadCertificates())(
    'reloads on SIGHUP and when the files change, while a connection opened before keeps answering',
    async () => {
      const kept = await keptConnection(server.port);
      try {
        expect(await servedSerial(server.port)).toBe(first.serial);
        expect(await kept.ask()).toBe('HTTP/1.1 200 OK');
        // Two at once, as the timer's and the test's may be: each gets its own answer.
        expect(await Promise.all([kept.ask(), kept.ask()])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);

        // By signal: the same files rewritten in place would also be seen by the poll; a signal is at once.
        const bySignal = await ca.issue();
        TestCa.place(bySignal, paths);
        process.kill(server.pid, 'SIGHUP');
        await expect.poll(() => servedSerial(server.port), { timeout: 10_000 }).toBe(bySignal.serial);
        expect(await kept.ask()).toBe('HTTP/1.1 200 OK');

        // By the files changing, as a certbot renewal replaces them.
        const byFile = await ca.issue();
        TestCa.place(byFile, paths);
        await expect.poll(() => servedSerial(server.port), { timeout: 15_000 }).toBe(byFile.serial);
        expect(await kept.ask()).toBe('HTTP/1.1 200 OK');
        expect(kept.closed()).toBe(false);
        // The open connection still has the certificate it shook hands with.
        expect(kept.serial()).toBe(first.serial);
        expect(server.logs()).toContainEqual(
          expect.objectContaining({ msg: 'certificate reloaded', trigger: 'file', serial: byFile.serial }),
        );
      } finally {
        kept.end();
      }
    },
    // Its two waits alone may take 25 s on a loaded machine: more than vitest's default 30 s leaves for the rest.
    60_000,
  );

  it.runIf(canReloadCertificates())(
    'keeps the old pair serving when the new one does not match, logging one error naming the file',
    async () => {
      const before = await servedSerial(server.port);
      const foreign = await ca2.issue();
      // The certificate changes, the key is another's.
      writeFileSync(paths.cert, readFileSync((await ca.issue()).cert));
      writeFileSync(paths.key, readFileSync(foreign.key));
      process.kill(server.pid, 'SIGHUP');
      const error = await server.waitForLog((line) => line.level === 50 && String(line.msg).includes('certificate not reloaded'), 10_000);
      expect(error.msg).toContain(`${paths.key}: the key does not match the certificate in ${paths.cert}`);
      expect(await servedSerial(server.port)).toBe(before);
      expect((await httpsGet(server.port, '/api/webui/health')).status).toBe(200);

      // `webui tls reload` says the same and changes nothing; once the pair is whole it serves it.
      const refused = await runWebui(server.cwd, ['tls', 'reload']);
      expect(refused).toMatchObject({ code: 1 });
      expect(refused.stderr).toContain('the key does not match the certificate');
      expect(refused.stderr).toContain('the old certificate still serves');
      const fixed = await ca.issue();
      TestCa.place(fixed, paths);
      const reloaded = await runWebui(server.cwd, ['tls', 'reload']);
      expect(reloaded).toMatchObject({ code: 0 });
      expect(reloaded.stdout).toContain(`serial ${fixed.serial}`);
      expect(await servedSerial(server.port)).toBe(fixed.serial);
    },
  );

  it('closes a plain-HTTP request to the TLS port without an answer, logs nothing above debug, and keeps serving', async () => {
    const logged = server.logs().length;
    const received = await new Promise<Buffer>((resolve, reject) => {
      const socket = netConnect(server.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.end('GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    // At most a TLS alert record (7 bytes): no HTTP, no body.
    expect(received.length).toBeLessThanOrEqual(7);
    expect(received.toString('latin1')).not.toContain('HTTP');
    expect((await httpsGet(server.port, '/api/webui/health')).status).toBe(200);
    expect(
      server
        .logs()
        .slice(logged)
        .filter((line) => (line.level ?? 0) > 20),
    ).toEqual([]);
  });

  it('shows the paths, names and days left in config check, and the expiry in the metrics', async () => {
    const check = await runWebui(server.cwd, ['config', 'check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`tls certificate ${paths.cert}, key ${paths.key}`);
    expect(check.stdout).toContain('tls names localhost, 127.0.0.1, ::1');
    expect(check.stdout).toMatch(/tls expires \S+ \(19 days left\)/);

    const token = readWebuiFile(server.dataDir).access_token;
    const metrics = await httpsGet(server.port, '/api/webui/metrics', { authorization: `Bearer ${token}` });
    const expiry = Number(/^webui_tls_certificate_expiry_timestamp_seconds (\d+)$/m.exec(metrics.body)?.[1]);
    const { stdout } = await run('openssl', ['x509', '-in', paths.cert, '-noout', '-enddate']);
    expect(expiry).toBe(Date.parse(stdout.trim().replace(/^notAfter=/, '')) / 1000);
  });
});

describe('the session over TLS', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    // Development mode: without TLS the cookie would not be Secure.
    ({ server } = await serverWith(await ca.issue(), '', 'mode = "development"\n'));
  });

  it('sets a Secure cookie and opens wss:// with a ticket', async () => {
    const token = readWebuiFile(server.dataDir).access_token;
    const origin = `https://127.0.0.1:${server.port}`;
    const login = await httpsGet(
      server.port,
      '/api/webui/auth/verify',
      { 'content-type': 'application/json', origin, host: `127.0.0.1:${server.port}` },
      'POST',
      JSON.stringify({ token }),
    );
    expect(login.status).toBe(200);
    const cookie = String(login.headers['set-cookie']?.[0]);
    expect(cookie).toMatch(/;\s*Secure/i);

    const ticket = await httpsGet(server.port, '/api/webui/ws-token', { cookie: cookie.split(';')[0] as string });
    const wsToken = String((JSON.parse(ticket.body) as { token: string }).token);
    const socket = new WebSocket(`wss://127.0.0.1:${server.port}/api/webui/ws?token=${encodeURIComponent(wsToken)}`, {
      ca: readFileSync(ca.caCert),
      origin,
    });
    const first = await new Promise<Record<string, unknown>>((resolve, reject) => {
      socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')) as Record<string, unknown>));
      socket.once('error', reject);
    });
    socket.close();
    expect(first).toMatchObject({ event: 'ready' });
  });
});

describe('the gateway over TLS', () => {
  it('tells the bot’s backend the request came over https, from the GET fast path and the app alike', async () => {
    const backend = await startIdentityEchoBackend();
    try {
      const { server } = await serverWith(await ca.issue(), '', '', `[webui.upstream]\nurl = "http://127.0.0.1:${backend.port}"\n`);
      const bearer = { authorization: `Bearer ${readWebuiFile(server.dataDir).access_token}` };
      // A GET is the Node fast path's; a POST goes through the Hono app.
      expect((await httpsGet(server.port, '/api/webui/plugins', bearer)).status).toBe(200);
      expect(
        (await httpsGet(server.port, '/api/webui/plugins', { ...bearer, 'content-type': 'application/json' }, 'POST', '{}')).status,
      ).toBe(200);
      expect(backend.received.map((request) => [request.method, request.headers['x-forwarded-proto']])).toEqual([
        ['GET', 'https'],
        ['POST', 'https'],
      ]);
    } finally {
      await backend.stop();
    }
  });
});

describe('a self-signed certificate', () => {
  it('is made in <data>/tls/ with its key 0600, and the banner shows the fingerprint openssl prints', async () => {
    const server = await startServer({ config: '[webui.tls]\nself_signed = true\n' });
    const cert = join(server.dataDir, 'tls', 'cert.pem');
    const { stdout } = await run('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256']);
    const fingerprint = stdout.trim().split('=')[1] as string;
    expect(server.stderr()).toContain(`certificate self-signed, SHA-256 ${fingerprint}`);
    const curl = await run('curl', ['--silent', '--cacert', cert, `https://localhost:${server.port}/api/webui/health`]);
    expect(JSON.parse(curl.stdout)).toMatchObject({ status: 'healthy' });
    expect((await run('stat', ['-c', '%a', join(server.dataDir, 'tls', 'key.pem')])).stdout.trim()).toBe('600');
  });
});

describe('a pair that cannot serve stops the start with one line naming the file; nothing listens', () => {
  it.each([
    ['a missing file', async () => ({ cert: 'absent.pem', key: 'absent.key' }), 'absent.pem: the certificate file does not exist'],
    [
      'an unreadable PEM',
      async (cwd: string) => {
        writeFileSync(join(cwd, 'junk.pem'), 'not a certificate\n');
        return { cert: 'junk.pem', key: (await ca.issue()).key };
      },
      'junk.pem: not a PEM certificate',
    ],
    [
      'a key of another certificate',
      async () => ({ cert: (await ca.issue()).cert, key: (await ca2.issue()).key }),
      'the key does not match the certificate in',
    ],
    [
      'an expired certificate',
      async () => {
        const expired = await ca.issue({ expired: true });
        return { cert: expired.cert, key: expired.key };
      },
      'the certificate expired on 2020-02-01T00:00:00.000Z',
    ],
  ])('%s', async (_what, files, message) => {
    const cwd = makeTempDir();
    const { cert, key } = await files(cwd);
    const exited = await runServerToExit({ cwd, config: `[webui.tls]\ncert = "${cert}"\nkey = "${key}"\n` });
    expect(exited.code).toBe(1);
    const lines = exited.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^webui: cannot start: webui\.tls: /);
    expect(lines[0]).toContain(message);
    expect(exited.logs.filter((line) => line.msg === 'WebUI API listening')).toEqual([]);
  });

  it('refuses hsts with self_signed, saying why', async () => {
    const exited = await runServerToExit({ config: '[webui.tls]\nself_signed = true\nhsts = true\n' });
    expect(exited.code).toBe(1);
    expect(exited.stderr).toContain('webui.tls.hsts cannot be used with self_signed: a browser that saw the header would refuse the site');
  });
});

// The webui command reaches a server through its control socket, which only the Node server opens.
describe.skipIf(!canReloadCertificates())('webui tls reload without HTTPS', () => {
  it('says the server speaks plain HTTP, or that none runs, and exits 1', async () => {
    const server = await startServer();
    const plain = await runWebui(server.cwd, ['tls', 'reload']);
    expect(plain).toMatchObject({ code: 1 });
    expect(plain.stderr).toContain('this server speaks plain HTTP: [webui.tls] is not configured');
    await server.stop();
    const stopped = await runWebui(server.cwd, ['tls', 'reload']);
    expect(stopped).toMatchObject({ code: 1 });
    expect(stopped.stderr).toContain('no server is running on');
  });
});
