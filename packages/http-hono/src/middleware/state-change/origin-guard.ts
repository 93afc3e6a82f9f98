import type { Context } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../../app-env.js';
import { isAllowedOrigin } from '../../host/allowed-origins.js';
import { errorBody } from '../../answers/error-body.js';
import { bearerCredential } from '../../session/credentials/bearer-credential.js';
import type { RefusalReason } from '../../answers/refusal-audit.js';
import { requestHeader } from '../../runtime-port.js';
import { isSafeMethod } from './safe-methods.js';

/** Hears of each refusal, for the audit: the client's address and why. */
export type Refused = (address: string, reason: RefusalReason) => void;

/**
 * docs/decisions/0009-csrf-and-dns-rebinding.md CSRF rule: a state-changing request whose Origin is present and not allowed gets 403.
 * Without an Origin (old browsers' form posts) the browser's Sec-Fetch-Site decides: `cross-site` is
 * refused, `same-site` only passes with an allowed Referer; scripts send neither header and pass.
 * A request with `Authorization: Bearer` is not checked: a browser sends that header cross-site only after
 * a preflight, which CORS refuses for every origin that is not allowed.
 * hono/csrf only looks at form content types and refuses Origin-less scripts, so it fits neither way.
 */
export function originRefusal(
  c: Context<WebuiEnv>,
  policy: HttpPolicy,
  refused: Refused,
  // Forward-auth judges the method of the request a proxy asks about, not its own GET.
  method: string = c.req.method,
): Response | undefined {
  return isSafeMethod(method) ? undefined : stateChangeOriginRefusal(c, policy, refused);
}

/** The same rule for a request already known to change state (the state-change guard decides which do). */
export function stateChangeOriginRefusal(c: Context<WebuiEnv>, policy: HttpPolicy, refused: Refused): Response | undefined {
  if (bearerCredential(requestHeader(c, 'authorization')) !== null) return undefined;
  const origin = requestHeader(c, 'origin');
  if (origin !== undefined) {
    if (isAllowedOrigin(origin, c, policy)) return undefined;
    refused(c.get('clientIp'), 'origin_not_allowed');
    return errorBody(
      c,
      403,
      'origin_not_allowed',
      `Requests from origin ${JSON.stringify(origin.slice(0, 200))} are not allowed; add it to webui.allowed_origins.`,
    );
  }
  const site = requestHeader(c, 'sec-fetch-site')?.trim().toLowerCase();
  if (site === 'cross-site') return crossSiteRefusal(c, refused);
  if (site === 'same-site') {
    const refererOrigin = originOfUrl(requestHeader(c, 'referer'));
    if (refererOrigin === null || !isAllowedOrigin(refererOrigin, c, policy)) return crossSiteRefusal(c, refused);
  }
  return undefined;
}

function crossSiteRefusal(c: Context<WebuiEnv>, refused: Refused): Response {
  refused(c.get('clientIp'), 'cross_site_request');
  return errorBody(
    c,
    403,
    'cross_site_request',
    'A state change sent by a browser from another site is refused; send it from the dashboard, or from a script without browser headers.',
  );
}

/** The origin of a Referer URL, or null when there is none or it does not parse. */
function originOfUrl(url: string | undefined): string | null {
  if (url === undefined || !URL.canParse(url)) return null;
  const origin = new URL(url).origin;
  return origin === 'null' ? null : origin;
}
