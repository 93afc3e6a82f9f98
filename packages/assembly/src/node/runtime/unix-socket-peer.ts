import { UNIX_SOCKET_PEER } from '@webui/http-hono';
import type { Socket } from 'node:net';

// Marked when accepted: Node reports no remoteAddress for these, nor for a TCP socket already gone, so absence proves nothing.
const acceptedOnUnixSocket = new WeakSet<Socket>();

/** Marks a connection accepted by a `unix:` listener. */
export function markUnixSocketConnection(socket: Socket): void {
  acceptedOnUnixSocket.add(socket);
}

/** The peer the edge resolves the client from: the TCP address, or UNIX_SOCKET_PEER for a connection on the Unix socket. */
export function peerAddressOf(socket: Socket): string | undefined {
  return acceptedOnUnixSocket.has(socket) ? UNIX_SOCKET_PEER : socket.remoteAddress;
}
