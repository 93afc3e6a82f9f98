import * as v from 'valibot';
import { identityHeaders } from '../headers/identity-headers.js';
import type { CallerIdentity, UpstreamOptions } from '../upstream-options.js';

/** Why the upstream's channel could not be used: unreachable (or answering nonsense), or refusing the gateway's credential. */
export type UpstreamFailure = 'upstream_unavailable' | 'upstream_refused';

export type TicketResult = { ok: true; ticket: string } | { ok: false; failure: UpstreamFailure };

/** The original answers 200 with `success:false` when its cookie is missing or stale, so the dashboard is not sent to its login. */
const TicketBody = v.looseObject({ success: v.boolean(), token: v.optional(v.nullable(v.string())) });

/** Where the upstream gives its channel's tickets, and where that channel is. */
export const UPSTREAM_TICKET_PATH = '/api/webui/ws-token';
export const UPSTREAM_CHANNEL_PATH = '/api/webui/ws';

/**
 * The headers of a request the relay makes for a client (the ticket's GET, the channel's upgrade): the configured ones, then
 * the client's identity and an assertion made for `GET <path>`, which win as on a forwarded request.
 */
export function relayRequestHeaders(upstream: UpstreamOptions, identity: CallerIdentity, path: string): Record<string, string> {
  const headers = new Headers(upstream.headers);
  for (const [name, value] of Object.entries(identityHeaders(upstream, identity, { method: 'GET', path }))) headers.set(name, value);
  return Object.fromEntries(headers);
}

/** A one-use ticket for the upstream's channel from its `/api/webui/ws-token`, asked for `identity` with the configured headers. */
export async function fetchUpstreamTicket(upstream: UpstreamOptions, identity: CallerIdentity, signal: AbortSignal): Promise<TicketResult> {
  let response: Response;
  try {
    const headers = relayRequestHeaders(upstream, identity, UPSTREAM_TICKET_PATH);
    const request = new Request(new URL(UPSTREAM_TICKET_PATH, upstream.origin), { headers, signal });
    response = await upstream.transport(request);
  } catch {
    return { ok: false, failure: 'upstream_unavailable' };
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, failure: 'upstream_refused' };
  }
  let body: unknown;
  try {
    body = response.ok ? await response.json() : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) await response.body?.cancel().catch(() => undefined);
  const parsed = v.safeParse(TicketBody, body);
  if (!parsed.success) return { ok: false, failure: 'upstream_unavailable' };
  if (!parsed.output.success) return { ok: false, failure: 'upstream_refused' };
  const ticket = parsed.output.token;
  return typeof ticket === 'string' && ticket !== '' ? { ok: true, ticket } : { ok: false, failure: 'upstream_unavailable' };
}

/** `ws(s)://<origin host>/api/webui/ws?token=<ticket>`: the ticket is the only credential the upstream's channel reads. */
export function upstreamChannelUrl(origin: string, ticket: string): string {
  const { protocol, host } = new URL(origin);
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}${UPSTREAM_CHANNEL_PATH}?token=${encodeURIComponent(ticket)}`;
}
