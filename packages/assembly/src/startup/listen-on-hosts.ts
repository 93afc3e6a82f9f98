import type { Logger } from 'pino';
import { unixSocketPath } from '../config/listen-host.js';
import { StartupError } from './startup-error.js';

/** One bound address: the runtime's server for one host, and the port it got (0 for a `unix:` host). */
export interface Bound<Server> {
  host: string;
  port: number;
  server: Server;
}

/** How one runtime binds a host, tells a port in use from other failures, and lets a server go. */
export interface HostBinder<Server> {
  /** A `unix:/path` host listens on that socket (port ignored), or throws a StartupError when it must not. */
  bind(host: string, port: number): Promise<{ server: Server; port: number }>;
  isAddressInUse(error: unknown): boolean;
  stop(server: Server): Promise<void>;
}

/**
 * Binds every host on one port (0: the first host picks it, the others follow). A host that cannot
 * be bound is a warning; none bound, or a port already in use, is a startup error naming the address.
 */
export async function listenOnHosts<Server>(
  hosts: readonly string[],
  port: number,
  binder: HostBinder<Server>,
  logger: Logger,
): Promise<Array<Bound<Server>>> {
  const bound: Array<Bound<Server>> = [];
  let chosen = port;
  for (const host of hosts) {
    const socket = unixSocketPath(host) !== null;
    const address = socket ? host : host.includes(':') ? `[${host}]:${chosen}` : `${host}:${chosen}`;
    try {
      const { server, port: actual } = await binder.bind(host, chosen);
      // A socket has no port: the next TCP host still picks or keeps it.
      if (!socket) chosen = actual;
      bound.push({ host, port: socket ? 0 : chosen, server });
    } catch (error) {
      const inUse = binder.isAddressInUse(error);
      if (inUse || error instanceof StartupError) {
        await Promise.all(bound.map((listener) => binder.stop(listener.server)));
        if (!inUse) throw error;
        throw new StartupError(
          socket
            ? `cannot listen on ${address}: another server answers on it (stop it or pick another path)`
            : `cannot listen on ${address}: the port is already in use (set webui.port, WEBUI_PORT or --port)`,
        );
      }
      const code = (error as { code?: unknown }).code;
      logger.warn(
        { host, port: chosen, ...(typeof code === 'string' ? { code } : {}) },
        `cannot listen on ${address}: ${(error as Error).message}; continuing without it`,
      );
    }
  }
  if (bound.length === 0) throw new StartupError(`could not listen on any of ${hosts.join(', ')} (port ${port}); check webui.host`);
  return bound;
}
