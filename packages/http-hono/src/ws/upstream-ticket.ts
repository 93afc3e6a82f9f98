import * as v from 'valibot';
import type { UpstreamOptions } from '../upstream/upstream-options.js';

/** Why the upstream's channel could not be used: unreachable (or answering nonsense), or refusing the gateway's credential. */
export type UpstreamFailure = 'upstream_unavailable' | 'upstream_refused';

export type TicketResult = { ok: true; ticket: string } | { ok: false; failure: UpstreamFailure };

/** The original answers 200 with `success:false` when its cookie is missing or stale, so the dashboard is not sent to its login. */
const TicketBody = v.looseObject({ success: v.boolean(), token: v.optional(v.nullable(v.string())) });

/** A one-use ticket for the upstream's channel from its `/api/webui/ws-token`, asked with the configured headers. */
export async function fetchUpstreamTicket(upstream: UpstreamOptions, signal: AbortSignal): Promise<TicketResult> {
  let response: Response;
  try {
    const request = new Request(new URL('/api/webui/ws-token', upstream.origin), { headers: upstream.headers, signal });
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
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/api/webui/ws?token=${encodeURIComponent(ticket)}`;
}
