import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Connection options other than `upgrade` survive the replay (keep-alive, close). */
function connectionWithoutUpgrade(value: string): string {
  return value
    .split(',')
    .map((option) => option.trim())
    .filter((option) => option !== '' && option.toLowerCase() !== 'upgrade')
    .join(', ');
}

/**
 * The request head as it came, minus `Upgrade` and the `upgrade` connection option: what the
 * client would have sent had it not asked to switch protocols. Header bytes go back as they came (latin1).
 */
function headWithoutUpgrade(req: IncomingMessage): Buffer {
  // Node reads a request line without a version as HTTP/0.9; writing it back the same way keeps it so.
  const lines = [req.httpVersion === '0.9' ? `${req.method} ${req.url}` : `${req.method} ${req.url} HTTP/${req.httpVersion}`];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (lower === 'upgrade') continue;
    if (lower === 'connection') {
      const kept = connectionWithoutUpgrade(value);
      if (kept !== '') lines.push(`${name}: ${kept}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/**
 * Node hands every request with `Connection: upgrade` to the server's 'upgrade' listeners, whatever
 * its path, and detaches the socket from HTTP. A request that is not ours to upgrade goes back to the
 * server as a new connection whose first bytes are that request without its upgrade headers, and its
 * body (`head`, then the socket): the app then answers it exactly as it answers the plain request,
 * with Node's own body framing, keep-alive and timeouts.
 */
export function replayWithoutUpgrade(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const replay = () => {
    if (socket.destroyed) return;
    socket.unshift(Buffer.concat([headWithoutUpgrade(req), head]));
    server.emit('connection', socket);
  };
  // A pipelined request still being answered owns the socket (Node's name for it): the replay waits its turn.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) inFlight.once('finish', replay);
  else replay();
}
