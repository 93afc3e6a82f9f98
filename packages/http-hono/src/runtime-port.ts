import type { Context } from 'hono';
import type { GetConnInfo } from 'hono/conninfo';

/**
 * What the app needs from the runtime that serves it. Bun and Deno give Hono's own `getConnInfo`
 * (`hono/bun`, `hono/deno`) and nothing else. A runtime whose web-standard Request is costly to build
 * (@hono/node-server makes one the first time a header or the body is read) may add the speed-ups,
 * each measured to pay (docs/performance.md); without them the app reads and answers through Hono.
 */
export interface RuntimePort {
  /** The client's TCP address, as Hono's getConnInfo helpers give it. */
  getConnInfo: GetConnInfo;
  /** Whether the connection itself is TLS; absent, whether the request's URL is https:// (as Bun and Deno give it over TLS). */
  isTls?: (c: Context) => boolean;
  /** Speed-up: a request header by lower-case name, repeated fields joined as a web Headers joins them. */
  readHeader?: (c: Context, name: string) => string | undefined;
  /**
   * Speed-up: the request body as UTF-8 text, or null when it is longer than maxBytes. Called only for
   * a body whose Content-Length was declared and checked against the limit.
   */
  readBody?: (c: Context, maxBytes: number) => Promise<string | null>;
  /**
   * Speed-up: sets a header on the runtime's own response before the answer exists, under the headers
   * the answer brings, so that no web Headers object is built for it. False when the request has no
   * such response (a WebSocket upgrade): the header then goes through Hono.
   */
  presetAnswerHeader?: (c: Context, name: string, value: string) => boolean;
}

/** The per-request variable the edge sets, through which the rest of the app reaches the runtime. */
interface RuntimeVariables {
  runtime: RuntimePort;
}

const portOf = (c: Context): RuntimePort | undefined => (c as Context<{ Variables: RuntimeVariables }>).get('runtime');

/** A request header by lower-case name: through the runtime's speed-up when it has one, else Hono's. */
export function requestHeader(c: Context, name: string): string | undefined {
  const port = portOf(c);
  return port?.readHeader ? port.readHeader(c, name) : c.req.header(name);
}

/** The runtime's own body reader for this request, if it has one. */
export function runtimeBodyReader(c: Context): ((maxBytes: number) => Promise<string | null>) | undefined {
  const port = portOf(c);
  const readBody = port?.readBody;
  return readBody ? (maxBytes) => readBody(c, maxBytes) : undefined;
}
