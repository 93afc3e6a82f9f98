import type { WSContext } from 'hono/ws';

/** Bytes one socket may hold unsent before it is closed: a client that does not read must not grow the server (issue 42). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
export const SEND_BUFFER_FULL_REASON = 'send buffer full: the client does not read';

/**
 * The runtime's measure of what one socket holds unsent (written, not yet taken by the network), in bytes; undefined when
 * it cannot tell. The port through which each runtime brings it: the hub keeps the rule.
 */
export type BufferedBytes = (socket: WSContext) => number | undefined;

/** The web WebSocket's `bufferedAmount`, which Hono's `raw` has on Node (`ws`) and Deno; Bun's ServerWebSocket brings its own. */
export const webBufferedBytes: BufferedBytes = (socket) => {
  const raw: unknown = socket.raw;
  const amount = typeof raw === 'object' && raw !== null ? (raw as { bufferedAmount?: unknown }).bufferedAmount : undefined;
  return typeof amount === 'number' ? amount : undefined;
};
