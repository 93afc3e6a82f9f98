import type { Server as HttpsServer } from 'node:https';
import { unixSocketPath, type TlsService } from '../index.js';
import type { BoundListener } from './listeners.js';

/**
 * Reloads on Node: the poll, `webui tls reload` and SIGHUP swap the pair of every HTTPS listener with setSecureContext, which
 * new handshakes use; open connections and WebSockets keep theirs. Returns the undoing of the SIGHUP handler.
 */
export function serveTlsReloads(tls: TlsService, listeners: readonly BoundListener[]): () => void {
  const servers = listeners
    .filter((listener) => unixSocketPath(listener.host) === null)
    .map((listener) => listener.server as unknown as HttpsServer);
  // setSecureContext checks the pair first and throws, changing nothing, for one it cannot serve.
  tls.serveReloads(({ cert, key }) => {
    for (const server of servers) server.setSecureContext({ cert, key });
  });
  const onHangUp = () => void tls.reload('signal');
  process.on('SIGHUP', onHangUp);
  return () => process.off('SIGHUP', onHangUp);
}
