import { GatewayStartupError } from '../gateway-startup-error.js';
import type { ForwardCounts, UpstreamChannelOptions, UpstreamOptions, UpstreamSocket, UpstreamTransport } from '../upstream-options.js';

/** Where the upstream is: its origin, and the Unix socket that carries it when `webui.upstream.url` names one. */
export interface UpstreamTarget {
  origin: string;
  socketPath?: string;
}

/** How this runtime talks to the upstream: its HTTP transport and its WebSocket client for the channel relay. */
export interface UpstreamClient {
  transport: UpstreamTransport;
  /** Speed-up: the same sending from a request's parts, with no web Request built (UpstreamOptions.send). */
  send?: UpstreamOptions['send'];
  openSocket: UpstreamChannelOptions['openSocket'];
  /** Where this client's forwards are counted (countedUpstreamClient), for a fast path that sends without it. */
  counts?: ForwardCounts;
  /** Closes pooled connections on shutdown. */
  close?(): unknown;
}

export type UpstreamClientFactory = (target: UpstreamTarget) => UpstreamClient;

/** Bun's and Deno's WebSocket constructor, which the DOM types do not describe: options with the handshake's headers. */
type HeaderSendingWebSocket = new (url: string, options: { headers: Record<string, string> }) => UpstreamSocket;

/**
 * The web-standard client, for runtimes without one of their own (Bun, Deno): the global fetch and WebSocket. Bun's and
 * Deno's WebSocket take `{ headers }` beside the URL (Deno 2.9 and Bun 1.4 send them on the handshake, checked against a
 * recording server); a WebSocket that knows only the standard's `protocols` throws on that object (not a valid protocol
 * name), so the relay answers upstream_unavailable rather than open the bot's channel without the client's identity.
 */
export const webUpstreamClient: UpstreamClientFactory = (target) => {
  if (target.socketPath !== undefined)
    throw new GatewayStartupError(
      `webui.upstream.url unix:${target.socketPath}: a Unix socket upstream is supported on the Node server (apps/server)`,
    );
  return {
    transport: async (request) => {
      const answer = await fetch(request, { redirect: 'manual' });
      // fetch decodes a coded body: its headers must stop saying it is coded, and its length is no longer known.
      if (!answer.headers.has('content-encoding')) return answer;
      const headers = new Headers(answer.headers);
      headers.delete('content-encoding');
      headers.delete('content-length');
      return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
    },
    openSocket: (url, headers) => new (WebSocket as unknown as HeaderSendingWebSocket)(url, { headers: { ...headers } }),
  };
};
