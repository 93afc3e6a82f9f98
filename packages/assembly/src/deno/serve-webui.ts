import { getConnInfo, upgradeWebSocket } from 'hono/deno';
import { runPortableServer } from '../portable-server.js';
import type { PemPair } from '../portable-tls.js';
import type { ExtensionsSource } from '../webui-extensions.js';

type Fetch = (request: Request, info?: unknown) => Response | Promise<Response>;

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

/** The little of Deno's API the server uses, typed here so that this package compiles with Node's types alone. */
interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}
interface DenoApi {
  args: string[];
  cwd(): string;
  env: { get(name: string): string | undefined };
  serve(options: { hostname: string; port: number; onListen: () => void; cert?: string; key?: string }, handler: Fetch): DenoServer;
  errors: { AddrInUse: new (...args: never[]) => Error };
  addSignalListener(signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void): void;
  exit(code: number): never;
  unrefTimer(id: number): void;
}

/**
 * The WebUI API on Deno as apps/deno runs it (Deno.serve, hono/deno's WebSocket and client address), with a bot's route
 * groups and channel domains. Reads the flags `--port`, `--host`, `--data-dir`, `--config` and `--memory` from the
 * process's arguments; resolves once it listens, or once it has exited saying why it could not.
 */
export async function serveWebui(extensions?: ExtensionsSource): Promise<void> {
  const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;
  /** One Deno.serve for a host; with a pair, HTTPS. */
  const serve = (host: string, port: number, fetch: Fetch, pair?: PemPair) => {
    // onListen replaces Deno's own "Listening on" line: the JSON log says it.
    const options = { hostname: host, port, onListen: () => undefined };
    const server =
      pair === undefined ? deno.serve(options, fetch) : deno.serve({ ...options, cert: pair.cert, key: pair.key }, withHostHeader(fetch));
    return { server, port: server.addr.port };
  };
  await runPortableServer<DenoServer>(
    {
      args: deno.args,
      cwd: deno.cwd(),
      env: (name) => deno.env.get(name),
      getConnInfo,
      upgrade: upgradeWebSocket,
      serve,
      serveTls: serve,
      // Deno.serve takes its certificate once: the start says it cannot reload one.
      name: 'Deno',
      isAddressInUse: (error) => error instanceof deno.errors.AddrInUse,
      stop: (server) => server.shutdown(),
      onSignal: (signal, handler) => deno.addSignalListener(signal, handler),
      exit: (code) => deno.exit(code),
      unrefTimer: (timer) => deno.unrefTimer(timer as unknown as number),
    },
    extensions,
  );
}
