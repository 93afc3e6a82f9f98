import type { UpstreamFailure } from './upstream-ticket.js';

import type { RequestId } from '@webui/http-hono';

export type RelayFailure = UpstreamFailure | 'upstream_busy';

export const RELAY_FAILURE_MESSAGES: Readonly<Record<RelayFailure, string>> = {
  upstream_unavailable: "The bot's backend cannot be reached; try again later.",
  upstream_refused: "The bot's backend refused this server's credential (webui.upstream.headers).",
  upstream_busy: "Too many messages are waiting for the bot's backend; try again.",
};

/** How the relay reaches its client socket. */
export interface RelayHooks {
  /** A frame for the client, as the upstream sent it (or a local answer). */
  pass(text: string): void;
  /** The client's message `id` did not reach the upstream. */
  refuse(id: RequestId, code: RelayFailure, message: string): void;
  /** An event of the upstream's `logs` domain, for the merged log view. */
  logsEvent(event: string, data: unknown): void;
}
