/**
 * The WebUI management API on Deno: Deno.serve with hono/deno's WebSocket and client address, over
 * the shared assembly (@webui/assembly), which reads the same settings as apps/server.
 *
 * Run with the least permissions it needs, written once in apps/deno/package.json's start script:
 *   --allow-net                     listen on the configured hosts
 *   --allow-read=./config,./data    the config file and the data directory (add yours if --config/--data-dir point elsewhere,
 *                                   and a [webui.tls] certificate and key kept outside them)
 *   --allow-read=../../packages/assembly/dist/web,../../node_modules   the setup page and the Swagger UI files it serves
 *   --allow-write=./data            webui.json, its temp files and the lock
 *   --allow-env=WEBUI_CONFIG,... --ignore-env   the WEBUI_* variables; every other one reads as unset, so a
 *                                   webui.upstream.headers value's ${NAME} needs NAME added here by the operator
 *   --allow-sys=hostname,networkInterfaces   pino asks for the host name; a 0.0.0.0 bind's banner lists the machine's addresses
 *   --no-prompt                     a missing permission is an error, never a question on the terminal
 *   --conditions=source             the workspace packages from their TypeScript sources
 * Without --allow-run it cannot look at other processes: a data-directory lock left by a crashed
 * server is refused with a message naming the file, which the operator removes.
 */
import { runPortableServer, type PemPair } from '@webui/assembly';
import { getConnInfo, upgradeWebSocket } from 'hono/deno';

type Fetch = (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>;

/**
 * Deno.serve over TLS offers HTTP/2 by ALPN, and no option turns it off: an HTTP/2 request names its host in :authority, which
 * Deno puts in the URL but not in a Host header. The app reads Host (allowed_hosts, origins), so it is added from the URL.
 * An HTTP/1.1 request, the only kind that can upgrade to a WebSocket, is passed on as it came.
 */
const withHostHeader =
  (fetch: Fetch): Fetch =>
  (request, info) => {
    if (request.headers.has('host')) return fetch(request, info);
    const headers = new Headers(request.headers);
    headers.set('host', new URL(request.url).host);
    return fetch(new Request(request, { headers }), info);
  };

/** One Deno.serve for a host; with a pair, HTTPS. */
function serve(host: string, port: number, fetch: Fetch, pair?: PemPair) {
  // onListen replaces Deno's own "Listening on" line: the JSON log says it.
  const options = { hostname: host, port, onListen: () => undefined };
  const server =
    pair === undefined ? Deno.serve(options, fetch) : Deno.serve({ ...options, cert: pair.cert, key: pair.key }, withHostHeader(fetch));
  return { server, port: server.addr.port };
}

await runPortableServer<Deno.HttpServer>({
  args: Deno.args,
  cwd: Deno.cwd(),
  env: (name) => Deno.env.get(name),
  getConnInfo,
  upgrade: upgradeWebSocket,
  serve: (host, port, fetch) => serve(host, port, fetch),
  serveTls: (host, port, fetch, pair) => serve(host, port, fetch, pair),
  // Deno.serve takes its certificate once: the start says it cannot reload one.
  name: 'Deno',
  isAddressInUse: (error) => error instanceof Deno.errors.AddrInUse,
  stop: (server) => server.shutdown(),
  onSignal: (signal, handler) => Deno.addSignalListener(signal, handler),
  exit: (code) => Deno.exit(code),
  unrefTimer: (timer) => Deno.unrefTimer(timer),
});
