import { connect } from 'node:net';

/**
 * One raw HTTP/1.1 exchange with a server on 127.0.0.1: `head` (the request line and header lines,
 * each ending in CRLF) goes on the wire exactly as written, with `Connection: close` after it; the
 * whole raw answer comes back once the server closes.
 */
export function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(`${head}Connection: close\r\n\r\n`);
  });
}
