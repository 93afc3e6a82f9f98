import type { IncomingMessage } from 'node:http';

/**
 * Reads a Node request body as UTF-8 text, straight from the IncomingMessage: no web streams, no
 * Request. Null once it grows past maxBytes. A leading BOM is dropped, as Request.text() does.
 */
export function readIncomingBody(incoming: IncomingMessage, maxBytes: number): Promise<string | null> {
  if (
    incoming.complete &&
    !incoming.readableDidRead &&
    !incoming.readableEnded &&
    !incoming.destroyed &&
    incoming.readableFlowing === null
  ) {
    // The whole body has arrived and waits in the stream's buffer (a small body comes with the headers): take it at once.
    const buffered = incoming.read() as Buffer | null;
    if (buffered === null || buffered.length <= maxBytes) return Promise.resolve(utf8Text(buffered ?? Buffer.alloc(0)));
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    if (incoming.readableDidRead || incoming.readableEnded || incoming.destroyed) {
      reject(new Error('the request body was already read or cut off'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(utf8Text(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the connection closed before the request body ended'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/** The body as text; a leading BOM is dropped, as Request.text() does. */
function utf8Text(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
