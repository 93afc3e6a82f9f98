import { createNodeWebSocket } from '@hono/node-ws';
import { MAX_MESSAGE_BYTES } from '../index.js';
import { WS_PATH, type AppLogger, type WsUpgrade } from '@webui/http-hono';
import { Hono } from 'hono';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { replayWithoutUpgrade } from './runtime/plain-request-replay.js';
import { endWithResponse } from './runtime/raw-answer.js';

/** Where the app answers a handshake: its own fetch, with Node's request at hand for the upgrade. */
type HandshakeApp = {
  request(input: URL, init: RequestInit, env: { incoming: IncomingMessage; outgoing: undefined }): Response | Promise<Response>;
};

/** A GET to the channel's path asking for a WebSocket: the one kind of upgrade request this server takes. */
function isChannelHandshake(req: IncomingMessage): boolean {
  if (req.method !== 'GET' || req.headers.upgrade?.trim().toLowerCase() !== 'websocket') return false;
  const target = req.url ?? '';
  const query = target.indexOf('?');
  return (query < 0 ? target : target.slice(0, query)) === WS_PATH;
}

/** The WebSocket transport on Node: @hono/node-ws for the upgrade, ws ping frames for liveness; the assembly's hub does the rest. */
export class WebSocketChannel {
  private readonly nodeWs: ReturnType<typeof createNodeWebSocket>;
  private readonly alive = new WeakSet<WebSocket>();
  /** Handshakes the app let through to the upgrade (it checked Origin, headers, ticket and capacity). */
  private readonly accepted = new WeakSet<IncomingMessage>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: AppLogger,
    heartbeatMs: number,
  ) {
    // Its app is only used by injectWebSocket, which attach() replaces: an empty one will do.
    this.nodeWs = createNodeWebSocket({ app: new Hono() });
    // ws closes a socket that sends a bigger frame with 1009 before it reaches us.
    this.nodeWs.wss.options.maxPayload = MAX_MESSAGE_BYTES;
    // One message per turn of the event loop: a flood of small frames (libuv reads 2 MiB of them at once) cannot hold it (issue 42).
    this.nodeWs.wss.options.allowSynchronousEvents = false;
    this.nodeWs.wss.on('connection', (socket: WebSocket) => {
      this.alive.add(socket);
      socket.on('pong', () => this.alive.add(socket));
    });
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * The upgrade, with what the adapter catches logged rather than printed as a stack trace: on every
   * protocol error of a client (a frame over 64 KiB) @hono/node-ws builds an ErrorEvent, which Node 20 lacks.
   */
  get upgrade(): WsUpgrade {
    return (createEvents) => {
      const upgradeWebSocket = this.nodeWs.upgradeWebSocket(createEvents, {
        onError: (error: unknown) =>
          this.logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'a WebSocket event could not be delivered'),
      });
      return (c, next) => {
        this.accepted.add((c.env as { incoming: IncomingMessage }).incoming);
        return upgradeWebSocket(c, next);
      };
    };
  }

  /**
   * Takes the server's upgrade requests in place of @hono/node-ws's injectWebSocket, which takes every
   * one of them, whatever its path, and answers a refusal with an empty body: a WebSocket handshake to
   * the channel goes through the app, anything else is answered as the plain request it would be.
   */
  attach(server: Server, app: HandshakeApp): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (isChannelHandshake(req)) {
        this.handshake(app, req, socket, head).catch((error: unknown) => {
          this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'a WebSocket handshake failed');
          socket.destroy();
        });
      } else replayWithoutUpgrade(server, req, socket, head);
    });
  }

  /** The app decides (Origin, Host, handshake headers, ticket); a refusal goes back whole, error body (docs/decisions/0001-error-bodies.md) included. */
  private async handshake(app: HandshakeApp, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Node has taken its own error handling off the socket; a client gone mid-handshake must not crash the process.
    socket.on('error', () => socket.destroy());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await app.request(new URL(req.url ?? '/', 'http://localhost'), { headers }, { incoming: req, outgoing: undefined });
    if (this.accepted.has(req)) {
      this.nodeWs.wss.handleUpgrade(req, socket, head, (ws) => this.nodeWs.wss.emit('connection', ws, req));
      return;
    }
    await endWithResponse(socket, response);
  }

  /** Stops the heartbeat and cuts the sockets still open after the assembly told them the server is going away. */
  close(): void {
    clearInterval(this.heartbeat);
    for (const socket of this.nodeWs.wss.clients) socket.terminate();
  }

  /** A socket that did not answer the previous ping is dead: terminate it, its close frees the hub entry. */
  private beat(): void {
    for (const socket of this.nodeWs.wss.clients) {
      if (!this.alive.has(socket)) {
        socket.terminate();
        continue;
      }
      this.alive.delete(socket);
      socket.ping();
    }
  }
}
