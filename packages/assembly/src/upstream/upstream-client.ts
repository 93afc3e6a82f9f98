import type { UpstreamChannelOptions, UpstreamSocket, UpstreamTransport } from '@webui/http-hono';
import { StartupError } from '../startup-error.js';

/** Where the upstream is: its origin, and the Unix socket that carries it when `webui.upstream.url` names one. */
export interface UpstreamTarget {
  origin: string;
  socketPath?: string;
}

/** How this runtime talks to the upstream: its HTTP transport and its WebSocket client for the channel relay. */
export interface UpstreamClient {
  transport: UpstreamTransport;
  openSocket: UpstreamChannelOptions['openSocket'];
  /** Closes pooled connections on shutdown. */
  close?(): unknown;
}

export type UpstreamClientFactory = (target: UpstreamTarget) => UpstreamClient;

/**
 * The web-standard client, for runtimes without one of their own (Bun, Deno): the global fetch and WebSocket.
 * Their WebSocket sends no custom headers; the upstream's channel is opened with its one-time ticket, which is enough.
 */
export const webUpstreamClient: UpstreamClientFactory = (target) => {
  if (target.socketPath !== undefined)
    throw new StartupError(
      `webui.upstream.url unix:${target.socketPath}: a Unix socket upstream is supported on the Node server (apps/server)`,
    );
  return {
    transport: (request) => fetch(request, { redirect: 'manual' }),
    openSocket: (url) => new WebSocket(url) as unknown as UpstreamSocket,
  };
};
