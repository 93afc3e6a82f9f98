import type { RandomSource } from '@webui/core';
import { ASSERTION_SECRET_BYTES, createAssertionSigner } from './assertion/upstream-assertion.js';
import { loadAssertionKey } from './assertion/upstream-assertion-key.js';
import { webUpstreamClient, type UpstreamClientFactory } from './client/upstream-client.js';
import { UNIX_SOCKET_ORIGIN, upstreamOptionsFrom } from './settings/upstream-options-from.js';
import type { UpstreamSettings } from './settings/upstream-settings.js';
import type { UpstreamChannelOptions, UpstreamOptions } from './upstream-options.js';

/** The gateway to the bot's backend, ready for the app (HTTP forwarding) and the hub (the channel relay). */
export interface Gateway {
  http: UpstreamOptions;
  channel: UpstreamChannelOptions;
  close(): void;
}

/**
 * The gateway `[webui.upstream]` configures, or undefined without one. The assertion secret lives in the data directory
 * (0600, kept across restarts); a server without one (`--memory`) signs with a secret of its own run, drawn from `random`.
 * A runtime's client that cannot reach the upstream (a Unix socket on Bun or Deno) or a key file it cannot make or trust is a
 * GatewayStartupError.
 */
export async function openGateway(
  settings: UpstreamSettings | undefined,
  dataDir: string | null,
  random: RandomSource,
  clientFor: UpstreamClientFactory = webUpstreamClient,
): Promise<Gateway | undefined> {
  if (settings === undefined) return undefined;
  const client = clientFor(
    settings.socketPath === undefined ? { origin: settings.url } : { origin: UNIX_SOCKET_ORIGIN, socketPath: settings.socketPath },
  );
  const secret = dataDir === null ? random.bytes(ASSERTION_SECRET_BYTES) : await loadAssertionKey(dataDir, random);
  const http = upstreamOptionsFrom(settings, {
    transport: client.transport,
    ...(client.send ? { send: client.send } : {}),
    assertion: createAssertionSigner(secret),
  });
  // For Node's fast path, which sends a forwarded read itself: where the upstream listens, and where forwards are counted.
  if (settings.socketPath !== undefined) http.socketPath = settings.socketPath;
  if (client.counts) http.counts = client.counts;
  return { http, channel: { upstream: http, openSocket: client.openSocket }, close: () => void client.close?.() };
}
