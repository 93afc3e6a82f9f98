import { connect } from 'node:net';

/**
 * One raw HTTP/1.1 exchange with a server on 127.0.0.1: `head` (the request line and header lines,
 * each ending in CRLF) goes on the wire exactly as written, then `Connection: close`, the blank line
 * and `body`; the whole raw answer comes back once the server closes. `localAddress`: the source
 * address (127.0.0.x), for tests that count per client.
 */
export function rawExchange(port: number, head: string, body = '', localAddress?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(`${head}Connection: close\r\n\r\n${body}`, 'latin1');
  });
}

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** A HEAD answer: the headers of the GET answer, no body. */
  bodiless: boolean;
}

/** Splits what came back into HTTP responses (Content-Length or chunked framing); a trailing fragment is an error. */
export function parseRawResponses(raw: string, headRequest: boolean): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`an incomplete response head: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine = '', ...headerLines] = rest.slice(0, end).split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3}) /.exec(`${statusLine} `)?.[1];
    if (!status) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers = new Map(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    rest = rest.slice(end + 4);
    let body = '';
    const bodiless = headRequest && (rest === '' || rest.startsWith('HTTP/1.'));
    // A HEAD answer has no body, whatever it announces; a refusal of the parser (400 for a broken HEAD line) has one.
    if (bodiless || Number(status) === 204 || Number(status) === 304) {
      // No body.
    } else if (headers.get('transfer-encoding')?.includes('chunked')) {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = Number.parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (size === 0) {
          rest = rest.slice(rest.indexOf('\r\n') + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else {
      const length = Number(headers.get('content-length') ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    responses.push({ status: Number(status), headers, body, bodiless });
  }
  return responses;
}
