import type { UpstreamOptions } from '../upstream-options.js';
import type { UpstreamSettings } from './upstream-settings.js';

/** The origin requests to a Unix socket upstream are addressed to: its transport dials the socket, the URL names no host of its own. */
export const UNIX_SOCKET_ORIGIN = 'http://localhost';

/** What the runtime gives: how requests reach the upstream, and the assertion signer (absent: no X-WebUI-Assertion). */
export type UpstreamRuntimeParts = Pick<UpstreamOptions, 'transport' | 'send' | 'assertion'>;

/** The gateway's options from `[webui.upstream]`: the settings' part, plus the runtime's. */
export function upstreamOptionsFrom(settings: UpstreamSettings, { transport, send, assertion }: UpstreamRuntimeParts): UpstreamOptions {
  return {
    origin: settings.socketPath === undefined ? settings.url : UNIX_SOCKET_ORIGIN,
    paths: [...settings.paths],
    publicPaths: [...settings.publicPaths],
    headers: { ...settings.headers },
    // Never 0: a timer of 0 would time out every request.
    timeoutMs: Math.max(1, Math.round(settings.timeoutSeconds * 1000)),
    transport,
    ...(send === undefined ? {} : { send }),
    ...(assertion === undefined ? {} : { assertion }),
  };
}
