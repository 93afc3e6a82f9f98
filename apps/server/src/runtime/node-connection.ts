import type { ConnectionInfo } from '@webui/http-hono';
import type { Context } from 'hono';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { readIncomingBody } from './incoming-body.js';

/** What @hono/node-server puts into c.env. */
interface NodeBindings {
  incoming: IncomingMessage;
  /** Absent on a WebSocket upgrade. */
  outgoing: ServerResponse | undefined;
}

const bindingsOf = (c: Context) => c.env as NodeBindings;

// Node keeps only the first of these when a request repeats them; a web Headers joins them. They are
// read from the raw lines instead, so a second Host (or Content-Type) is seen, never silently dropped.
const FIRST_ONLY_IN_NODE = new Set(['host', 'content-type', 'content-length']);

/** Every value of a header, joined as a web Headers joins them. */
function joinedRawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  let joined: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = rawHeaders[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const value = rawHeaders[i + 1] as string;
    joined = joined === undefined ? value : `${joined}, ${value}`;
  }
  return joined;
}

/** A request header by lower-case name, repeated fields joined as a web Headers joins them. */
export function incomingHeader(incoming: IncomingMessage, name: string): string | undefined {
  if (FIRST_ONLY_IN_NODE.has(name)) return joinedRawHeader(incoming.rawHeaders, name);
  // Node joins repeated fields with ", " (Cookie with "; ", which is how cookies are split anyway).
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Whether the connection itself is TLS. */
export const isTlsIncoming = (incoming: IncomingMessage): boolean => Boolean((incoming.socket as Partial<TLSSocket> | null)?.encrypted);

/**
 * Node's connection facts, read from the IncomingMessage and ServerResponse @hono/node-server hands
 * the app: none of them builds a web-standard Request, Headers or body stream.
 */
export const nodeConnection: ConnectionInfo = {
  peerAddress: (c) => bindingsOf(c).incoming.socket.remoteAddress,
  isTls: (c) => isTlsIncoming(bindingsOf(c).incoming),
  readBody: (c, maxBytes) => readIncomingBody(bindingsOf(c).incoming, maxBytes),
  header: (c, name) => incomingHeader(bindingsOf(c).incoming, name),
  presetHeader(c, name, value) {
    // A WebSocket upgrade (@hono/node-ws) comes without a ServerResponse.
    const { outgoing } = bindingsOf(c);
    if (!outgoing) return false;
    // A header set on the ServerResponse is merged under the ones the app's answer carries.
    outgoing.setHeader(name, value);
    return true;
  },
};
