import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Writes a whole HTTP/1.1 answer straight onto a socket Node's HTTP server no longer drives (a
 * parser error, an upgrade request), then closes it: the connection's state is unknown afterwards.
 */
export function endWithRawAnswer(socket: Duplex, status: number, headers: ReadonlyArray<readonly [string, string]>, body: Buffer): void {
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of headers) head.push(`${name}: ${value}`);
  head.push(`Content-Length: ${body.length}`, 'Connection: close');
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
}

/** Framing headers the raw answer sets itself. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection']);

/** A web Response (the app's answer) written onto such a socket, headers and body as the app made them. */
export async function endWithResponse(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Array<[string, string]> = [];
  response.headers.forEach((value, name) => {
    if (!FRAMING.has(name) && name !== 'set-cookie') headers.push([name, value]);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push(['set-cookie', cookie]);
  endWithRawAnswer(socket, response.status, headers, body);
}
