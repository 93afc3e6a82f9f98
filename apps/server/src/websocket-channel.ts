import { createNodeWebSocket } from '@hono/node-ws';
import { CLOSE_GOING_AWAY, PluginProgressBoard, WsHub, type AppLogger, type LogSource, type WsUpgrade } from '@webui/http-hono';
import type { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { WebSocket } from 'ws';

const MAX_MESSAGE_BYTES = 64 * 1024;
const HEARTBEAT_INTERVAL_MS = 30_000;

/** The unified channel on Node: @hono/node-ws for the upgrade, ws ping frames for liveness. */
export class WebSocketChannel {
  readonly hub: WsHub;
  readonly progress = new PluginProgressBoard();
  private readonly nodeWs: ReturnType<typeof createNodeWebSocket>;
  private readonly alive = new WeakSet<WebSocket>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    root: Hono,
    logs: LogSource,
    private readonly logger: AppLogger,
    heartbeatMs = HEARTBEAT_INTERVAL_MS,
  ) {
    this.nodeWs = createNodeWebSocket({ app: root });
    // ws closes a socket that sends a bigger frame with 1009 before it reaches us.
    this.nodeWs.wss.options.maxPayload = MAX_MESSAGE_BYTES;
    this.nodeWs.wss.on('connection', (socket: WebSocket) => {
      this.alive.add(socket);
      socket.on('pong', () => this.alive.add(socket));
    });
    this.hub = new WsHub({ logs, progress: this.progress, logger, now: () => Date.now(), newConnectionId: randomUUID, maxMessageBytes: MAX_MESSAGE_BYTES });
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * The upgrade, with what the adapter catches logged rather than printed as a stack trace: on every
   * protocol error of a client (a frame over 64 KiB) @hono/node-ws builds an ErrorEvent, which Node 20 lacks.
   */
  get upgrade(): WsUpgrade {
    return (createEvents) =>
      this.nodeWs.upgradeWebSocket(createEvents, {
        onError: (error: unknown) => this.logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'a WebSocket event could not be delivered'),
      });
  }

  attach(server: Server): void {
    this.nodeWs.injectWebSocket(server);
  }

  /** Clean shutdown: every client is told the server is going away (1001); stragglers are cut after `graceMs`. */
  async close(graceMs = 1_000): Promise<void> {
    clearInterval(this.heartbeat);
    this.hub.closeAll(CLOSE_GOING_AWAY, 'server shutting down');
    const deadline = Date.now() + graceMs;
    while (this.nodeWs.wss.clients.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
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
