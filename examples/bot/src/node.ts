/**
 * The example bot on Node: @hono/node-server, and @hono/node-ws for the channel.
 *   node dist/node.js [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]
 */
import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono } from 'hono';
import { startBot } from './bot.js';

type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

// @hono/node-ws hands each upgrade request to an app before the server's app exists: this one passes it on.
let served: Fetch = () => new Response(null, { status: 503 });
const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app: new Hono().all('*', (c) => served(c.req.raw, c.env)) });

await startBot<ServerType>(
  {
    args: process.argv.slice(2),
    cwd: process.cwd(),
    env: (name) => process.env[name],
    getConnInfo,
    upgrade: upgradeWebSocket,
    serve: (host, port, fetch) =>
      new Promise((resolve, reject) => {
        served = fetch as Fetch;
        const server = serve({ fetch, hostname: host, port }, (info) => resolve({ server, port: info.port }));
        server.once('error', reject);
        injectWebSocket(server);
      }),
    isAddressInUse: (error) => (error as NodeJS.ErrnoException).code === 'EADDRINUSE',
    stop: (server) => new Promise<void>((resolve) => server.close(() => resolve())),
    onSignal: (signal, handler) => process.on(signal, handler),
    exit: (code) => process.exit(code),
    unrefTimer: (timer) => (timer as NodeJS.Timeout).unref(),
  },
  'node',
);
