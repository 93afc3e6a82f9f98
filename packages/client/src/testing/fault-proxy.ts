import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';

/** A request the proxy holds instead of passing it on, until the test says what becomes of it. */
export interface HeldRequest {
  /** Resolves once the client's socket that carried it is closed (by the client aborting, say). */
  readonly clientClosed: Promise<void>;
  /** Passes it on to the server now. */
  forward(): void;
  /** Destroys the client's socket: the connection drops with no answer. */
  drop(): void;
}

/** An HTTP and WebSocket proxy in front of the real server that holds, drops or passes on chosen requests. */
export interface FaultProxy {
  /** http://127.0.0.1:PORT */
  readonly baseUrl: string;
  /** The address its connections to the server come from: the one the server counts failures and bans for. */
  upstreamAddress: string;
  /** Holds the next `method` request to `/api/webui` + `path` (a WebSocket upgrade too); resolves once it arrived. */
  holdNext(method: string, path: string): Promise<HeldRequest>;
  /**
   * Drops the connection of every such request until `stop` is called, which returns how many it dropped (a runtime may send
   * a request again on a new connection after a drop: Deno does).
   */
  dropEvery(method: string, path: string): { stop(): number };
  /** Resolves once every socket it opened toward the server for a WebSocket is closed. */
  channelsClosed(): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/** Starts the proxy on a free loopback port in front of `target` (http://127.0.0.1:PORT). */
export async function startFaultProxy(target: string, upstreamAddress = '127.0.0.1'): Promise<FaultProxy> {
  const upstream = new URL(target);
  /** What becomes of the next matching request; `take` says whether the rule is used up. */
  const rules: Array<{ method: string; path: string; take: (held: HeldRequest) => boolean }> = [];
  const clientSockets = new Set<Socket>();
  const channelSockets = new Set<Socket>();

  const takeHold = (req: IncomingMessage, pass: () => void, drop: () => void): boolean => {
    const pathname = new URL(req.url ?? '/', 'http://proxy').pathname;
    const index = rules.findIndex((rule) => rule.method === req.method && `/api/webui${rule.path}` === pathname);
    const rule = rules[index];
    if (!rule) return false;
    if (rule.take({ clientClosed: closed(req.socket), forward: pass, drop })) rules.splice(rules.indexOf(rule), 1);
    return true;
  };

  const headersFor = (req: IncomingMessage): Record<string, string | string[]> => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    // The server serves its own Host; the proxy's port is not one of them.
    headers['host'] = upstream.host;
    return headers;
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const outgoing = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: headersFor(req),
        localAddress: proxy.upstreamAddress,
        agent: false,
      },
      (answer) => {
        const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    // The client gone before its answer was through: the server's side goes too.
    res.once('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  };

  const forwardUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer[]) => {
    const server = connect({ host: upstream.hostname, port: Number(upstream.port), localAddress: proxy.upstreamAddress }, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (const [name, value] of Object.entries(req.headers))
        if (name !== 'host') for (const one of [value ?? []].flat()) lines.push(`${name}: ${one}`);
      lines.push(`host: ${upstream.host}`);
      server.write(`${lines.join('\r\n')}\r\n\r\n`);
      for (const chunk of head) server.write(chunk);
      socket.pipe(server).pipe(socket);
    });
    channelSockets.add(server);
    server.once('close', () => {
      channelSockets.delete(server);
      socket.destroy();
    });
    server.on('error', () => socket.destroy());
    socket.once('close', () => server.destroy());
  };

  const http = createServer((req, res) => {
    if (
      !takeHold(
        req,
        () => forward(req, res),
        () => req.socket.destroy(),
      )
    )
      forward(req, res);
  });
  http.on('connection', (socket: Socket) => {
    clientSockets.add(socket);
    socket.once('close', () => clientSockets.delete(socket));
  });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Past the upgrade the socket is the proxy's alone, its errors included.
    socket.on('error', () => socket.destroy());
    // Read on while it is held: a client that gives up is seen (its end), and what it sent meanwhile is kept.
    const early = [head];
    const keep = (chunk: Buffer) => early.push(chunk);
    socket.on('data', keep);
    socket.once('end', () => socket.destroy());
    const pass = () => {
      socket.off('data', keep).pause();
      forwardUpgrade(req, socket, early);
    };
    if (!takeHold(req, pass, () => socket.destroy())) pass();
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');

  const proxy: FaultProxy = {
    baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    upstreamAddress,
    holdNext: (method, path) =>
      new Promise((arrived) =>
        rules.push({
          method,
          path,
          take(held) {
            arrived(held);
            return true;
          },
        }),
      ),
    dropEvery(method, path) {
      let dropped = 0;
      const rule = {
        method,
        path,
        take(held: HeldRequest) {
          dropped++;
          held.drop();
          return false;
        },
      };
      rules.push(rule);
      return {
        stop() {
          rules.splice(rules.indexOf(rule), 1);
          return dropped;
        },
      };
    },
    async channelsClosed() {
      await Promise.all([...channelSockets].map(closed));
    },
    async close() {
      for (const socket of [...clientSockets, ...channelSockets]) socket.destroy();
      http.close();
      await once(http, 'close');
    },
  };
  return proxy;
}

/** Resolves once the socket is closed, whether by an end, a reset or an error. */
function closed(socket: Duplex): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}
