import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now: the system picks one for port 0, and it is closed again at once. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port was given'))));
    });
  });
}

/** Whether `port` on 127.0.0.1 can be listened on right now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The offset of a cluster node's bus port from its client port (Redis's default). */
const CLUSTER_BUS_OFFSET = 10_000;

/**
 * A port for a Redis Cluster node, which listens on it and on its bus port (port + 10000): both free on 127.0.0.1 right now,
 * and neither one of `taken` nor their bus ports. freePort alone left the bus port to chance, and on a busy machine it was
 * sometimes another process's, so the node exited at start.
 */
export async function freeClusterNodePort(taken: readonly number[] = []): Promise<number> {
  const used = new Set(taken.flatMap((port) => [port, port + CLUSTER_BUS_OFFSET]));
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await freePort();
    const bus = port + CLUSTER_BUS_OFFSET;
    if (bus <= 65_535 && !used.has(port) && !used.has(bus) && (await isFree(bus))) return port;
  }
  throw new Error('no port with a free cluster bus port was found in 100 attempts');
}
