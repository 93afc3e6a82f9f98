/**
 * The example bot on Deno: Deno.serve with hono/deno's WebSocket.
 *   deno run --config=deno.json --allow-net --allow-sys=hostname,networkInterfaces --allow-env --allow-read --allow-write=./data src/deno.ts
 */
import { getConnInfo, upgradeWebSocket } from 'hono/deno';
import { startBot } from './bot.js';

await startBot<Deno.HttpServer>(
  {
    args: Deno.args,
    cwd: Deno.cwd(),
    env: (name) => Deno.env.get(name),
    getConnInfo,
    upgrade: upgradeWebSocket,
    serve(host, port, fetch) {
      const server = Deno.serve({ hostname: host, port, onListen: () => undefined }, fetch);
      return { server, port: server.addr.port };
    },
    isAddressInUse: (error) => error instanceof Deno.errors.AddrInUse,
    stop: (server) => server.shutdown(),
    onSignal: (signal, handler) => Deno.addSignalListener(signal, handler),
    exit: (code) => Deno.exit(code),
    unrefTimer: (timer) => Deno.unrefTimer(timer),
  },
  'deno',
);
