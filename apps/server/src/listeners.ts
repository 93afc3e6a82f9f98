import { getRequestListener } from '@hono/node-server';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { StartupError } from './startup-error.js';

export interface BoundListener {
  host: string;
  port: number;
  server: Server;
}

type FetchHandler = Parameters<typeof getRequestListener>[0];

/** Headers and bodies must arrive in time: slow clients cannot hold sockets open forever. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Binds every host on one port. A host that cannot be bound is a warning; none bound, or a
 * port already in use, is an error naming the address.
 */
export async function bindAll(hosts: readonly string[], port: number, fetch: FetchHandler, logger: Logger): Promise<BoundListener[]> {
  const bound: BoundListener[] = [];
  let chosenPort = port;
  for (const host of hosts) {
    const server = createServer(getRequestListener(fetch, { errorHandler: malformedRequest }));
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.keepAliveTimeout = 5_000;
    try {
      await listen(server, host, chosenPort);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const address = host.includes(':') ? `[${host}]:${chosenPort}` : `${host}:${chosenPort}`;
      if (code === 'EADDRINUSE') {
        await Promise.all(bound.map((listener) => closeServer(listener.server)));
        throw new StartupError(`cannot listen on ${address}: the port is already in use (set webui.port, WEBUI_PORT or --port)`);
      }
      logger.warn({ host, port: chosenPort, code }, `cannot listen on ${address}: ${(error as Error).message}; continuing without it`);
      continue;
    }
    const address = server.address();
    if (address && typeof address === 'object') chosenPort = address.port;
    bound.push({ host, port: chosenPort, server });
  }
  if (bound.length === 0) throw new StartupError(`could not listen on any of ${hosts.join(', ')} (port ${port}); check webui.host`);
  return bound;
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
 * Answers what never reached the app as a D1 body: a request Hono cannot turn into a Request
 * (a Host it cannot parse) is a 400; anything else escaping the app, which handles its own errors, a 500.
 */
function malformedRequest(error: unknown): Response {
  const headers = { 'Cache-Control': 'no-store' };
  if (error instanceof Error && error.name === 'RequestError') {
    return Response.json({ detail: `The request is malformed: ${error.message}.`, code: 'bad_request' }, { status: 400, headers });
  }
  return Response.json({ detail: 'The server could not complete the request; see its log.', code: 'internal_error' }, { status: 500, headers });
}
