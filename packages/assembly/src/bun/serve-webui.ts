import { getConnInfo, upgradeWebSocket, websocket } from 'hono/bun';
import { MAX_MESSAGE_BYTES } from '@webui/http-hono';
import { runPortableServer } from '../portable-server.js';
import type { PemPair } from '../portable-tls.js';
import type { ExtensionsSource } from '../webui-extensions.js';

type Fetch = (request: Request, server?: unknown) => Response | Promise<Response>;

/** The little of Bun's API the server uses, typed here so that neither this package nor a bot needs @types/bun. */
interface BunServer {
  port?: number;
  stop(closeActiveConnections?: boolean): unknown;
}
interface BunApi {
  serve(options: {
    hostname: string;
    port: number;
    fetch: Fetch;
    websocket: typeof websocket & { maxPayloadLength: number };
    maxRequestBodySize: number;
    tls?: PemPair;
  }): BunServer;
}

/**
 * The WebUI API on Bun as apps/bun runs it (Bun.serve, hono/bun's WebSocket and client address), with a bot's route groups
 * and channel domains. Reads the flags `--port`, `--host`, `--data-dir`, `--config` and `--memory` from the process's
 * arguments; resolves once it listens, or once it has exited saying why it could not.
 */
export async function serveWebui(extensions?: ExtensionsSource): Promise<void> {
  const bun = (globalThis as unknown as { Bun: BunApi }).Bun;
  /** One Bun.serve for a host; with a pair, HTTPS. */
  const serve = (host: string, port: number, fetch: Fetch, pair?: PemPair) => {
    const server = bun.serve({
      hostname: host,
      port,
      fetch,
      websocket: { ...websocket, maxPayloadLength: MAX_MESSAGE_BYTES },
      // Bun cuts a body past 128 MB by default; the app limits its own endpoints' bodies, a forwarded one streams to the bot.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      ...(pair === undefined ? {} : { tls: { cert: pair.cert, key: pair.key } }),
    });
    return { server, port: server.port ?? port };
  };
  await runPortableServer<BunServer>(
    {
      args: process.argv.slice(2),
      cwd: process.cwd(),
      env: (name) => process.env[name],
      getConnInfo,
      upgrade: upgradeWebSocket,
      // Bun's ServerWebSocket has no bufferedAmount: the hub's send cap reads this.
      bufferedBytes: (socket) => (socket.raw as { getBufferedAmount(): number }).getBufferedAmount(),
      serve,
      serveTls: serve,
      // Bun's server.reload({ tls }) keeps the first certificate (oven-sh/bun#43815): the start says it cannot reload one.
      name: 'Bun',
      isAddressInUse: (error) => (error as { code?: string }).code === 'EADDRINUSE',
      stop: async (server) => {
        await server.stop(true);
      },
      onSignal: (signal, handler) => process.on(signal, handler),
      exit: (code) => process.exit(code),
      unrefTimer: (timer) => timer.unref(),
    },
    extensions,
  );
}
