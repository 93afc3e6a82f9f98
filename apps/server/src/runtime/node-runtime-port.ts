import { getConnInfo } from '@hono/node-server/conninfo';
import type { RuntimePort } from '@webui/http-hono';
import type { Context } from 'hono';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { peerAddressOf } from './unix-socket-peer.js';

/** What @hono/node-server puts into c.env. */
interface NodeBindings {
  incoming: IncomingMessage;
  /** Absent for a WebSocket upgrade, which has no response of its own. */
  outgoing?: ServerResponse;
}

const bindingsOf = (c: Context) => c.env as NodeBindings;

// Node keeps only the first of these when a request repeats them; a web Headers joins them. They are
// read from the raw lines instead, so a second Host, Content-Type or Authorization is seen, never silently dropped.
const FIRST_ONLY_IN_NODE = new Set(['host', 'content-type', 'content-length', 'authorization']);

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
 * Reads a Node request body as UTF-8 text, straight from the IncomingMessage: no web streams, no
 * Request. Null once it grows past maxBytes. A leading BOM is dropped, as Request.text() does.
 */
export function readIncomingBody(incoming: IncomingMessage, maxBytes: number): Promise<string | null> {
  if (
    incoming.complete &&
    !incoming.readableDidRead &&
    !incoming.readableEnded &&
    !incoming.destroyed &&
    incoming.readableFlowing === null
  ) {
    // The whole body has arrived and waits in the stream's buffer (a small body comes with the headers): take it at once.
    const buffered = incoming.read() as Buffer | null;
    if (buffered === null || buffered.length <= maxBytes) return Promise.resolve(utf8Text(buffered ?? Buffer.alloc(0)));
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    if (incoming.readableDidRead || incoming.readableEnded || incoming.destroyed) {
      reject(new Error('the request body was already read or cut off'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(utf8Text(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the connection closed before the request body ended'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/** The body as text; a leading BOM is dropped, as Request.text() does. */
function utf8Text(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

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
