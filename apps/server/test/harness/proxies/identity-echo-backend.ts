import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the backend received: what a proxy let through, and who it said was calling. */
export interface EchoedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface IdentityEchoBackend {
  port: number;
  /** Every request received, in order. */
  received: EchoedRequest[];
  stop(): Promise<void>;
}

/**
 * The app behind a forward-auth proxy: answers every request 200 with the identity headers it received
 * ({method, path, principal, scope}), and records each, so a test proves what was let through and what never arrived.
 */
export async function startIdentityEchoBackend(): Promise<IdentityEchoBackend> {
  const received: EchoedRequest[] = [];
  const server = createServer((req, res) => {
    const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers };
    received.push(request);
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({
        method: request.method,
        path: request.path,
        principal: req.headers['x-webui-principal'] ?? null,
        scope: req.headers['x-webui-scope'] ?? null,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
