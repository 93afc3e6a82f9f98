import type { Context } from 'hono';
import type { ConnectionInfo, HeaderReader, WebuiEnv } from './app-env.js';

const honoHeader: HeaderReader = (c, name) => c.req.header(name);

/** The runtime's header fast path when it has one, else Hono's (which builds a Headers object on Node). */
export function headerReaderFor(connection: ConnectionInfo): HeaderReader {
  return connection.header ? connection.header.bind(connection) : honoHeader;
}

/** A request header by lower-case name, read as the edge step chose for this request. */
export function requestHeader(c: Context<WebuiEnv>, name: string): string | undefined {
  return (c.get('readHeader') ?? honoHeader)(c, name);
}
