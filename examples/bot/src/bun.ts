/**
 * The example bot on Bun: Bun.serve with hono/bun's WebSocket.
 *   bun src/bun.ts [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 */
import { MAX_MESSAGE_BYTES } from '@webui/assembly';
import { getConnInfo, upgradeWebSocket, websocket } from 'hono/bun';
import { startBot } from './bot.js';

await startBot<Bun.Server<unknown>>(
  {
    args: process.argv.slice(2),
    cwd: process.cwd(),
    env: (name) => process.env[name],
    getConnInfo,
    upgrade: upgradeWebSocket,
    // Bun's ServerWebSocket has no bufferedAmount: the hub's send cap reads this.
    bufferedBytes: (socket) => (socket.raw as Bun.ServerWebSocket<unknown>).getBufferedAmount(),
    serve(host, port, fetch) {
      const server = Bun.serve({
        hostname: host,
        port,
        fetch,
        websocket: { ...websocket, maxPayloadLength: MAX_MESSAGE_BYTES },
        // Bun cuts a body past 128 MB by default; the server limits its own endpoints' bodies, one forwarded to an upstream streams.
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      });
      return { server, port: server.port ?? port };
    },
    isAddressInUse: (error) => (error as { code?: string }).code === 'EADDRINUSE',
    stop: (server) => server.stop(true),
    onSignal: (signal, handler) => process.on(signal, handler),
    exit: (code) => process.exit(code),
    unrefTimer: (timer) => timer.unref(),
  },
  'bun',
);
