/**
 * The WebUI management API on Bun: Bun.serve with hono/bun's WebSocket and client address, over the
 * shared assembly (@webui/assembly), which reads the same settings as apps/server.
 *
 *   bun --conditions=source src/main.ts [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 */
import { MAX_MESSAGE_BYTES, runPortableServer } from '@webui/assembly';
import { getConnInfo, upgradeWebSocket, websocket } from 'hono/bun';

await runPortableServer<Bun.Server<unknown>>({
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
      // Bun cuts a body past 128 MB by default; the app limits its own endpoints' bodies, a forwarded one streams to the bot.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    });
    return { server, port: server.port ?? port };
  },
  isAddressInUse: (error) => (error as { code?: string }).code === 'EADDRINUSE',
  stop: (server) => server.stop(true),
  onSignal: (signal, handler) => process.on(signal, handler),
  exit: (code) => process.exit(code),
  unrefTimer: (timer) => timer.unref(),
});
