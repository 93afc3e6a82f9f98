import { getRequestListener } from '@hono/node-server';
import { listenOnHosts, unixSocketPath, type Bound } from '../index.js';
import type { SessionCheckShortcut } from '@webui/http-hono';
import { chmod } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TlsService } from '../tls/index.js';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { withSessionCheckShortcut } from './fast-path/session-check-listener.js';
import { withForwardShortcut } from './fast-path/forward-listener.js';
import type { ForwardShortcut } from '@webui/gateway';
import { endWithRawAnswer } from './runtime/raw-answer.js';
import { clearLeftoverSocket } from './runtime/unix-socket-file.js';
import { markUnixSocketConnection } from './runtime/unix-socket-peer.js';

export type BoundListener = Bound<Server>;

type FetchHandler = Parameters<typeof getRequestListener>[0];

/** Headers and bodies must arrive in time: slow clients cannot hold sockets open forever. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
// Node looks for expired requests only this often; its 30 s default let a slow client keep a socket up to 40 s.
const CONNECTIONS_CHECK_MS = 1_000;
// Owner and group: a reverse proxy in the server's group connects, nobody else on the machine does.
const UNIX_SOCKET_MODE = 0o660;

/** What the API's listeners add to the app; the metrics port's have none of it. */
export interface ListenerExtras {
  /** The app's GET /auth/check shortcut. */
  sessionCheck?: SessionCheckShortcut | undefined;
  /** The gateway's forwarded GET and HEAD. */
  forward?: ForwardShortcut | undefined;
  /** HTTPS on every TCP host. */
  tls?: TlsService | undefined;
  /** Told of every TCP connection as it arrives (the connections each client holds); a Unix socket's peer is the proxy. */
  onConnection?: ((socket: Socket) => void) | undefined;
}

/**
 * Binds every host on one port, the assembly's rule for a host that cannot be bound or a port in use. With `tls`, every TCP
 * host speaks HTTPS with its pair (a Unix socket stays plain: the proxy in front terminates TLS).
 */
export function bindAll(
  hosts: readonly string[],
  port: number,
  fetch: FetchHandler,
  logger: Logger,
  { sessionCheck, forward, tls, onConnection }: ListenerExtras = {},
): Promise<BoundListener[]> {
  const app = appListener(fetch);
  // The Node fast paths (src/fast-path/): the gateway's forwarded reads, then the dashboard's /auth/check poll.
  const forwarding = forward ? withForwardShortcut(forward, app) : undefined;
  const inner = forwarding?.listener ?? app;
  const listener = sessionCheck ? withSessionCheckShortcut(sessionCheck, inner) : inner;
  const overTls = tls?.hsts === undefined ? listener : withHeader(listener, 'Strict-Transport-Security', tls.hsts);
  return listenOnHosts(
    hosts,
    port,
    {
      async bind(host, chosenPort) {
        const socketPath = unixSocketPath(host);
        // requireHostHeader off: Node's own 400 for a missing Host has no body; malformedRequest answers it with the error body (docs/decisions/0001-error-bodies.md).
        const options = { connectionsCheckingInterval: CONNECTIONS_CHECK_MS, requireHostHeader: false };
        const server =
          tls === undefined || socketPath !== null ? createServer(options, listener) : httpsServer(options, overTls, tls, logger);
        server.on('clientError', answerClientError);
        server.on('connect', refuseConnect);
        if (forwarding) server.on('close', forwarding.close);
        server.headersTimeout = HEADERS_TIMEOUT_MS;
        server.requestTimeout = REQUEST_TIMEOUT_MS;
        server.keepAliveTimeout = 5_000;
        if (socketPath !== null) {
          await clearLeftoverSocket(socketPath);
          server.on('connection', markUnixSocketConnection);
          await listenOnSocket(server, socketPath);
          return { server, port: 0 };
        }
        if (onConnection) server.on('connection', onConnection);
        await listen(server, host, chosenPort);
        const address = server.address();
        return { server, port: address && typeof address === 'object' ? address.port : chosenPort };
      },
      isAddressInUse: (error) => (error as NodeJS.ErrnoException).code === 'EADDRINUSE',
      stop: (server) => closeServer(server),
    },
    logger,
  );
}

/** The Hono app as a Node listener, with the error body for what never reached it: every request no fast path takes. */
export function appListener(fetch: FetchHandler): RequestListener {
  return getRequestListener(fetch, { errorHandler: malformedRequest });
}

/** An HTTPS server (HTTP/1.1) with the pair `tls` serves now; its reloads swap the pair for new handshakes. */
function httpsServer(options: object, listener: RequestListener, tls: TlsService, logger: Logger): Server {
  const { cert, key } = tls.current();
  const server = createHttpsServer({ ...options, cert, key }, listener);
  // Plain HTTP, a port scan, a client that does not trust the certificate: the handshake fails and the connection is closed
  // without an answer. Nothing to tell an operator about.
  server.on('tlsClientError', (error: NodeJS.ErrnoException) => logger.debug({ err: error.code ?? error.message }, 'TLS handshake failed'));
  // https.Server has http.Server's whole interface.
  return server as unknown as Server;
}

/** Sets one header on every answer; the answer's own value of it, if any, wins. */
function withHeader(listener: RequestListener, name: string, value: string): RequestListener {
  return (incoming, outgoing) => {
    outgoing.setHeader(name, value);
    listener(incoming, outgoing);
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Listens on a Unix socket created with mode 0660 (no moment with a wider one); Node removes the file when the server closes. */
async function listenOnSocket(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket file is created inside listen(), synchronously: the narrower umask covers it and nothing else.
    const umask = process.umask(0o117);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  await chmod(path, UNIX_SOCKET_MODE);
}

/** Stops accepting at once; requests still in flight get `graceMs` before their connections are cut. */
export function closeServer(server: Server, graceMs = 2_000): Promise<void> {
  return new Promise((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    cut.unref();
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Answers what never reached the app as an error body (docs/decisions/0001-error-bodies.md): a request Hono cannot turn into a Request
 * (a Host it cannot parse) is a 400; anything else escaping the app, which handles its own errors, a 500.
 */
function malformedRequest(error: unknown): Response {
  const headers = { 'Cache-Control': 'no-store' };
  if (error instanceof Error && error.name === 'RequestError') {
    return Response.json({ detail: `The request is malformed: ${error.message}.`, code: 'bad_request' }, { status: 400, headers });
  }
  return Response.json(
    { detail: 'The server could not complete the request; see its log.', code: 'internal_error' },
    { status: 500, headers },
  );
}

/** Node's status and error code (docs/decisions/0001-error-bodies.md) for a request its parser refused or that came too slowly. */
function clientErrorStatus(code: string | undefined): { status: number; code: string; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', detail: 'The request headers are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', detail: 'The request did not arrive in time.' };
    default:
      return { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP.' };
  }
}

/** Node answers these itself with an empty body; every error answer carries the error body (docs/decisions/0001-error-bodies.md) instead. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // As Node does: never write into a response that has already started, nor to a peer that is gone.
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const { status, code, detail } = clientErrorStatus(error.code);
    endWithRawAnswer(socket, status, [['Content-Type', 'application/json']], Buffer.from(JSON.stringify({ detail, code })));
  }
  socket.destroy(error);
}

/** Node hands CONNECT (a proxy's tunnel request) to this listener, or drops the connection unanswered without one. */
function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  const body = { detail: 'CONNECT is not served: this is not a proxy.', code: 'method_not_allowed' };
  endWithRawAnswer(
    socket,
    405,
    [
      ['Content-Type', 'application/json'],
      ['Cache-Control', 'no-store'],
    ],
    Buffer.from(JSON.stringify(body)),
  );
}
