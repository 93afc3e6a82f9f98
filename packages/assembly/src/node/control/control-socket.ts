import type { Core, Logger, SecurityEventSink } from '@webui/core';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { TlsService } from '../../index.js';
import { answerControlLine, type ControlServices } from './control-operations.js';
import { MAX_REQUEST_LINE_BYTES, type ControlAnswer } from './control-protocol.js';
import { controlSocketPlace } from './control-socket-place.js';

/** A client that sends nothing for this long is gone or stuck; its connection is closed. */
export const CONTROL_IDLE_TIMEOUT_MS = 5_000;
// The operator's CLI makes one connection at a time; a few more cover scripts, and no one can pile up sockets.
const MAX_CONNECTIONS = 8;
const SOCKET_MODE = 0o600;

export interface ControlSocket {
  path: string;
  /** Stops accepting, cuts open connections and removes the socket file. */
  close(): Promise<void>;
}

export interface ControlSocketOptions {
  dataDir: string;
  /** The server's core: bans, keys, token and first setup are changed through it, as over HTTP. */
  core: Core;
  /** The server's audit trail, where what the CLI changed is recorded (via "cli"). */
  audit: SecurityEventSink;
  logger: Logger;
  /** The server's HTTPS pair, for `webui tls reload`. */
  tls?: TlsService | undefined;
  /** CONTROL_IDLE_TIMEOUT_MS unless a test wants it shorter. */
  idleTimeoutMs?: number;
}

/**
 * The local control socket the CLI talks to (`webui bans`, `keys`, `token`, `setup`): `<dataDir>/webui.sock`,
 * mode 0600 in the 0700 data directory, so whoever can open it can read the token anyway and no token is asked for. Open it
 * only while holding the instance lock: a socket file found then was left by a killed server and is
 * replaced. Null when the platform or the path length rules it out, or it cannot be opened (warned once).
 */
export async function openControlSocket({
  dataDir,
  core,
  audit,
  logger,
  tls,
  idleTimeoutMs = CONTROL_IDLE_TIMEOUT_MS,
}: ControlSocketOptions): Promise<ControlSocket | null> {
  const place = controlSocketPlace(dataDir);
  if (place.kind === 'unsupported') return null;
  if (place.kind === 'too-long') {
    logger.warn(
      { path: place.path, bytes: place.bytes, maxBytes: place.maxBytes },
      'the control socket path is too long for this platform; running without it, so the CLI cannot reach this server and refuses to ' +
        'change its data (use a shorter data directory)',
    );
    return null;
  }
  const { path } = place;
  const connections = new Set<Socket>();
  // Half-open allowed: `nc -U` ends its side after the request and still reads the answer.
  const server = createServer({ allowHalfOpen: true }, (socket) =>
    serveConnection(socket, connections, { core, audit, logger, tls }, idleTimeoutMs),
  );
  server.maxConnections = MAX_CONNECTIONS;
  try {
    await removeLeftoverSocket(path);
    await listen(server, path);
    // The 0700 directory already keeps others out; the mode says so on the file too.
    await chmod(path, SOCKET_MODE);
    // An accept failure (out of file descriptors) must not take the whole server down.
    server.on('error', (error) => logger.warn({ path, err: error.message }, 'the control socket failed to accept a connection'));
  } catch (error) {
    server.close();
    logger.warn(
      { path, err: error instanceof Error ? error.message : String(error) },
      'cannot open the control socket; running without it, so the CLI cannot reach this server and refuses to change its data',
    );
    return null;
  }
  return {
    path,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of connections) socket.destroy();
      await closed;
      await unlink(path).catch(() => undefined);
    },
  };
}

/** Removes a socket file a killed server left behind; anything else under that name is not ours to delete. */
async function removeLeftoverSocket(path: string): Promise<void> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stats.isSocket()) throw new Error(`${path} exists and is not a socket; move it away`);
  await unlink(path);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Reads request lines one at a time (the socket is paused while one is answered), so answers keep the order of requests. */
function serveConnection(socket: Socket, connections: Set<Socket>, services: ControlServices, idleTimeoutMs: number): void {
  connections.add(socket);
  socket.on('close', () => connections.delete(socket));
  // A peer that hangs up mid-answer is no concern of the server's.
  socket.on('error', () => undefined);
  socket.setTimeout(idleTimeoutMs, () => socket.destroy());
  socket.setEncoding('utf8');

  let pending = '';
  let answering = false;
  const send = (answer: ControlAnswer) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(answer)}\n`);
  };
  // The rest of an oversized line is never read: the refusal is sent and the connection closed.
  const refuseTooLong = () => {
    const answer: ControlAnswer = { ok: false, code: 'bad_request', detail: `a request line is at most ${MAX_REQUEST_LINE_BYTES} bytes` };
    pending = '';
    socket.end(`${JSON.stringify(answer)}\n`, () => socket.destroy());
  };

  const answerPending = async (final: boolean) => {
    answering = true;
    socket.pause();
    let newline: number;
    while (!socket.destroyed && ((newline = pending.indexOf('\n')) !== -1 || (final && pending !== ''))) {
      const end = newline === -1 ? pending.length : newline;
      const line = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      if (Buffer.byteLength(line) > MAX_REQUEST_LINE_BYTES) return refuseTooLong();
      // Blank lines (a stray Enter in a hand-typed session) are not requests.
      if (line.trim() !== '') send(await answerControlLine(line, services));
    }
    if (Buffer.byteLength(pending) > MAX_REQUEST_LINE_BYTES) return refuseTooLong();
    answering = false;
    if (final) socket.end();
    else socket.resume();
  };

  socket.on('data', (chunk: string) => {
    pending += chunk;
    if (!answering) void answerPending(false);
  });
  // Emitted only after every chunk was read and answered (the socket is paused meanwhile); a last line may lack its newline.
  socket.on('end', () => void answerPending(true));
}
