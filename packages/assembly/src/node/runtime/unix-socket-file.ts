import { StartupError } from '../../index.js';
import { lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';

/**
 * Makes way for a listener on `path`: a socket file nothing answers on (left by a crashed server) is
 * removed; a socket another server answers on, or anything that is not a socket, is never touched and
 * stops the start with the path named.
 */
export async function clearLeftoverSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const where = `unix:${path}`;
  if (!isSocket) throw new StartupError(`cannot listen on ${where}: ${path} exists and is not a socket; move it away or pick another path`);
  const probe = await knock(path);
  if (probe === 'answered')
    throw new StartupError(`cannot listen on ${where}: another server answers on it (stop it or pick another path)`);
  if (probe !== 'refused')
    throw new StartupError(`cannot listen on ${where}: cannot tell whether a server still uses it (${probe}); remove it if none does`);
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** Connects once: 'answered', 'refused' (no listener: a leftover file), or the error code that says neither. */
function knock(path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve('answered');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'refused' : (error.code ?? error.message));
    });
  });
}
