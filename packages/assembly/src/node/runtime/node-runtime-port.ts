import { getConnInfo } from '@hono/node-server/conninfo';
import type { RuntimePort } from '@webui/http-hono';
import type { Context } from 'hono';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { readIncomingBody } from '../fast-path/incoming-body.js';
import { incomingHeader } from '../fast-path/incoming-header.js';
import { peerAddressOf } from './unix-socket-peer.js';

/** What @hono/node-server puts into c.env. */
interface NodeBindings {
  incoming: IncomingMessage;
  /** Absent for a WebSocket upgrade, which has no response of its own. */
  outgoing?: ServerResponse;
}

const bindingsOf = (c: Context) => c.env as NodeBindings;

/** Whether the connection itself is TLS. */
export const isTlsIncoming = (incoming: IncomingMessage): boolean => Boolean((incoming.socket as Partial<TLSSocket> | null)?.encrypted);

/**
 * The app's runtime port on Node: @hono/node-server's getConnInfo, and the speed-ups, which read
 * headers and the body from the IncomingMessage @hono/node-server hands the app and preset a header
 * on its ServerResponse, so that no web-standard Request, Headers or body stream is built (docs/performance.md has what each saves).
 */
export const nodeRuntimePort: RuntimePort = {
  getConnInfo(c) {
    const info = getConnInfo(c);
    // Hono's helper leaves the address out for a Unix socket; the edge must know the request came that way.
    info.remote.address = peerAddressOf(bindingsOf(c).incoming.socket);
    return info;
  },
  isTls: (c) => isTlsIncoming(bindingsOf(c).incoming),
  readHeader: (c, name) => incomingHeader(bindingsOf(c).incoming, name),
  readBody: (c, maxBytes) => readIncomingBody(bindingsOf(c).incoming, maxBytes),
  presetAnswerHeader(c, name, value) {
    const { outgoing } = bindingsOf(c);
    if (!outgoing) return false;
    // Node merges it under the header fields the answer's writeHead brings: the answer's own value wins.
    outgoing.setHeader(name, value);
    return true;
  },
};
