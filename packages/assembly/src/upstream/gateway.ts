import {
  ASSERTION_SECRET_BYTES,
  createAssertionSigner,
  UpstreamTargetError,
  webUpstreamClient,
  type UpstreamChannelOptions,
  type UpstreamClientFactory,
  type UpstreamOptions,
} from '@webui/gateway';
import type { UpstreamSettings } from '../config/settings.js';
import { StartupError } from '../startup-error.js';
import { systemRandom } from '../system-ports.js';
import { loadAssertionKey } from './upstream-assertion-key.js';
import { UNIX_SOCKET_ORIGIN, upstreamOptionsFrom } from './upstream-options-from.js';

/** The gateway to the bot's backend, ready for the app (HTTP forwarding) and the hub (the channel relay). */
export interface Gateway {
  http: UpstreamOptions;
  channel: UpstreamChannelOptions;
  close(): void;
}

/**
 * The gateway `[webui.upstream]` configures, or undefined without one. The assertion secret lives in the data directory
 * (0600, kept across restarts); a server without one (`--memory`) signs with a secret of its own run.
 */
export async function openGateway(
  settings: UpstreamSettings | undefined,
  dataDir: string | null,
  clientFor: UpstreamClientFactory = webUpstreamClient,
): Promise<Gateway | undefined> {
  if (settings === undefined) return undefined;
  const client = clientOf(
    clientFor,
    settings.socketPath === undefined ? { origin: settings.url } : { origin: UNIX_SOCKET_ORIGIN, socketPath: settings.socketPath },
  );
  const secret = dataDir === null ? systemRandom.bytes(ASSERTION_SECRET_BYTES) : await loadAssertionKey(dataDir);
  const http = upstreamOptionsFrom(settings, {
    transport: client.transport,
    ...(client.send ? { send: client.send } : {}),
    assertion: createAssertionSigner(secret),
  });
  return { http, channel: { upstream: http, openSocket: client.openSocket }, close: () => void client.close?.() };
}

/** The runtime's client for the upstream; one it cannot reach (a Unix socket on Bun or Deno) is a StartupError. */
function clientOf(clientFor: UpstreamClientFactory, target: Parameters<UpstreamClientFactory>[0]) {
  try {
    return clientFor(target);
  } catch (error) {
    throw error instanceof UpstreamTargetError ? new StartupError(error.message) : error;
  }
}
