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
