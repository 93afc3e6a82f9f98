import type { UpstreamClient, UpstreamTarget } from '@webui/assembly';
import type { UpstreamSocket } from '@webui/http-hono';
import { Agent, fetch as undiciFetch, type BodyInit as UndiciBody, type HeadersInit as UndiciHeaders } from 'undici';
import WebSocket from 'ws';

/**
 * The upstream's HTTP and WebSocket clients on Node: undici's fetch over one keep-alive pool (TCP, or the
 * Unix socket `webui.upstream.url = "unix:/path"` names), and `ws` for the channel, which can send the
 * configured headers and dial a socket file. Bun and Deno use their global fetch and WebSocket instead.
 */
export function nodeUpstreamClient(target: UpstreamTarget): UpstreamClient {
  const socketPath = target.socketPath;
  const dispatcher = new Agent(
    socketPath === undefined ? { keepAliveTimeout: 4_000 } : { connect: { socketPath }, keepAliveTimeout: 4_000 },
  );
  return {
    // The app's Request is Node's built-in undici's, which this undici does not take as a Request: passed by its parts.
    // Its Response is the web one in shape; the app streams its body and reads its head.
    transport: (request) =>
      undiciFetch(request.url, {
        method: request.method,
        // The same web types from another copy of undici: Headers iterate alike, a ReadableStream is a ReadableStream.
        headers: request.headers as unknown as UndiciHeaders,
        body: request.body as unknown as UndiciBody,
        duplex: 'half',
        signal: request.signal,
        redirect: 'manual',
        dispatcher,
      }) as unknown as Promise<Response>,
    openSocket(url, headers) {
      // ws names a socket file in the URL itself: ws+unix:/path:/request-path.
      const address = socketPath === undefined ? url : `ws+unix:${socketPath}:${pathOf(url)}`;
      return new WebSocket(address, { headers: { ...headers } }) as unknown as UpstreamSocket;
    },
    close: () => dispatcher.close(),
  };
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}
