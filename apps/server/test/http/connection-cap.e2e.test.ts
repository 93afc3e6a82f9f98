import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../harness/clients/http-client.js';
import {
  capsConnectionsPerClient,
  cleanupServers,
  eventually,
  makeTempDir,
  startServer,
  type ServerProcess,
} from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * webui.max_connections_per_client against the real server (docs/decisions/0041-open-connections-per-client.md): open TCP
 * connections from one address past the cap are closed on arrival, before a byte is read; other addresses, the connections
 * already open and a trusted proxy's are untouched; one warning, and the metric.
 */
afterAll(cleanupServers);

const CAP = 3;
const refusedLine = (line: { msg?: unknown }) => String(line.msg).includes('max_connections_per_client');

/** One idle TCP connection from `localAddress`, once the server has it. */
function idleConnection(server: ServerProcess, localAddress: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: server.port, host: '127.0.0.1', localAddress });
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Sends one GET /health on an open connection and resolves with the status line. */
function askOn(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const onData = (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve(answer.slice(0, answer.indexOf('\r\n')));
    };
    socket.on('data', onData);
    socket.write('GET /api/webui/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

describe.runIf(capsConnectionsPerClient())('open connections per client', () => {
  it('closes a client’s connection past the cap unread, serves everyone else and what is open, and lets it in again when one ends', async () => {
    const server = await startServer({ config: `[webui]\nmax_connections_per_client = ${CAP}\n` });
    const held = await Promise.all(Array.from({ length: CAP }, () => idleConnection(server, '127.0.0.10')));

    const past = await idleConnection(server, '127.0.0.10');
    // Closed on arrival with nothing written: no TLS, no HTTP was read from it (an uncapped server keeps it open: 5 s, then fail).
    expect(await Promise.race([past.closed, new Promise((resolve) => setTimeout(resolve, 5_000, 'still open after 5 s'))])).toBe('');
    // Another address is not held to this one's count; the open connections still serve.
    expect((await new HttpClient(server.baseUrl, { localAddress: '127.0.0.11' }).get('/health')).status).toBe(200);
    expect(await askOn(held[0]!.socket)).toBe('HTTP/1.1 200 OK');

    const warning = await server.waitForLog(refusedLine);
    expect(warning).toMatchObject({ level: 40, client: '127.0.0.10', refused: 1, limit: CAP });

    // One ends: the server hears of it, and the client gets a connection again.
    held[1]!.socket.destroy();
    const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.10' });
    await eventually(async () => (await client.get('/health').catch(() => null))?.status === 200, 5_000, 'a connection again');

    const token = readWebuiFile(server.dataDir).access_token;
    const metrics = await new HttpClient(server.baseUrl, { localAddress: '127.0.0.12' }).get('/metrics', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Number(/^webui_connections_refused_total (\d+)$/m.exec(metrics.text)?.[1])).toBeGreaterThanOrEqual(1);
    // At most one warning a minute, however many were refused.
    expect(server.logs().filter(refusedLine)).toHaveLength(1);
    for (const { socket } of held) socket.destroy();
  });

  it('does not count a trusted proxy’s connections, which carry many clients', async () => {
    const server = await startServer({ config: '[webui]\nmax_connections_per_client = 1\ntrusted_proxies = ["127.0.0.20"]\n' });
    const held = await Promise.all(Array.from({ length: 4 }, () => idleConnection(server, '127.0.0.20')));
    const client = new HttpClient(server.baseUrl, { localAddress: '127.0.0.20' });
    expect((await client.get('/health')).status).toBe(200);
    expect(server.logs().filter(refusedLine)).toEqual([]);
    for (const { socket } of held) socket.destroy();
  });

  it('does not count a Unix socket’s connections: its peer is the proxy', async () => {
    const cwd = makeTempDir();
    const path = join(cwd, 'webui-http.sock');
    const server = await startServer({ cwd, config: `[webui]\nhost = ["unix:${path}"]\nmax_connections_per_client = 1\n` });
    const held = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<Socket>((resolve, reject) => {
            const socket = connect({ path }, () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    expect((await new HttpClient('http://localhost', { socketPath: path }).get('/health')).status).toBe(200);
    expect(held.every((socket) => !socket.destroyed)).toBe(true);
    expect(server.logs().filter(refusedLine)).toEqual([]);
    for (const socket of held) socket.destroy();
  });
});

describe.skipIf(capsConnectionsPerClient())('open connections per client on Bun and Deno', () => {
  it('says at startup that they are not capped', async () => {
    const server = await startServer({ config: `[webui]\nmax_connections_per_client = ${CAP}\n` });
    expect(server.logs()).toContainEqual(
      expect.objectContaining({
        maxConnectionsPerClient: CAP,
        msg: expect.stringContaining('cannot cap the connections each client holds'),
      }),
    );
  });
});
