/**
 * The WebUI management API on Bun: Bun.serve with hono/bun's WebSocket and client address, over the
 * shared assembly (@webui/assembly), which reads the same settings as apps/server.
 *
 *   bun --conditions=source src/main.ts [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 */
import { MAX_MESSAGE_BYTES, runPortableServer, type PemPair } from '@webui/assembly';
import { getConnInfo, upgradeWebSocket, websocket } from 'hono/bun';

/** One Bun.serve for a host; with a pair, HTTPS. */
function serve(host: string, port: number, fetch: (request: Request, env?: unknown) => Response | Promise<Response>, pair?: PemPair) {
  const server = Bun.serve({
    hostname: host,
    port,
    fetch,
    websocket: { ...websocket, maxPayloadLength: MAX_MESSAGE_BYTES },
    // Bun cuts a body past 128 MB by default; the app limits its own endpoints' bodies, a forwarded one streams to the bot.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    ...(pair === undefined ? {} : { tls: { cert: pair.cert, key: pair.key } }),
  });
  return { server, port: server.port ?? port };
}

await runPortableServer<Bun.Server<unknown>>({
  args: process.argv.slice(2),
  cwd: process.cwd(),
  env: (name) => process.env[name],
  getConnInfo,
  upgrade: upgradeWebSocket,
  // Bun's ServerWebSocket has no bufferedAmount: the hub's send cap reads this.
  bufferedBytes: (socket) => (socket.raw as Bun.ServerWebSocket<unknown>).getBufferedAmount(),
  serve: (host, port, fetch) => serve(host, port, fetch),
  serveTls: (host, port, fetch, pair) => serve(host, port, fetch, pair),
  // Bun's server.reload({ tls }) keeps the first certificate (oven-sh/bun#43815): the start says it cannot reload one.
  name: 'Bun',
  isAddressInUse: (error) => (error as { code?: string }).code === 'EADDRINUSE',
  stop: (server) => server.stop(true),
  onSignal: (signal, handler) => process.on(signal, handler),
  exit: (code) => process.exit(code),
  unrefTimer: (timer) => timer.unref(),
});
