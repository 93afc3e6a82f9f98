import { OncePerWindow } from '@webui/core';
import type { Context } from 'hono';
import type { AppLogger } from '@webui/http-hono';
import { errorFields, jsonAnswer, type JsonAnswer } from '@webui/http-hono';

/** How a forwarded request can fail before the upstream's answer has a head; each is an error body (docs/decisions/0001-error-bodies.md), never a 500. */
export type UpstreamFailure = 'upstream_unavailable' | 'upstream_timeout' | 'upstream_refused';

const FAILURE_STATUS = { upstream_unavailable: 502, upstream_timeout: 504, upstream_refused: 502 } as const;

const FAILURE_LOG: Record<UpstreamFailure, string> = {
  upstream_unavailable: "the bot's backend (webui.upstream.url) cannot be reached; forwarded requests get 502 upstream_unavailable",
  upstream_timeout: "the bot's backend (webui.upstream.url) did not answer within webui.upstream.timeout; forwarded requests get 504",
  upstream_refused:
    "the bot's backend answered 401 to this server's own credential: set webui.upstream.headers to what it expects " +
    '(e.g. Cookie = "maibot_session=${MAIBOT_TOKEN}"); forwarded requests get 502 upstream_refused',
};

// A backend that is down fails every request: one line a minute for each kind says as much as a thousand.
const WARNING_INTERVAL_MS = 60_000;

/** The caller's answer for `failure`, docs/decisions/0001-error-bodies.md, with a detail that names the setting to look at and no secret. */
export function upstreamFailureAnswer(c: Context, failure: UpstreamFailure, timeoutMs: number): Response {
  const answer = upstreamFailureFields(failure, timeoutMs);
  return c.json(answer.body, answer.status);
}

/** upstreamFailureAnswer's answer as plain values, for a runtime's fast path. */
export function upstreamFailureFields(failure: UpstreamFailure, timeoutMs: number): JsonAnswer {
  const detail = {
    upstream_unavailable: "The bot's backend cannot be reached; try again shortly.",
    upstream_timeout: `The bot's backend did not answer within ${timeoutMs / 1000} seconds (webui.upstream.timeout).`,
    upstream_refused:
      "The bot's backend refused this server's own credential (webui.upstream.headers); your login here is fine, " +
      'the operator has to fix the gateway configuration.',
  }[failure];
  return jsonAnswer(FAILURE_STATUS[failure], errorFields(failure, detail));
}

/** Warns of each kind of upstream failure at most once a minute; `fields` never hold a secret (no header, no URL). */
export class UpstreamWarnings {
  private readonly warnings = new OncePerWindow<UpstreamFailure>(WARNING_INTERVAL_MS);

  constructor(
    private readonly logger: AppLogger,
    private readonly now: () => number,
  ) {}

  warn(failure: UpstreamFailure, fields: object = {}): void {
    if (this.warnings.due(failure, this.now()) === null) return;
    this.logger.warn({ ...fields, code: failure }, FAILURE_LOG[failure]);
  }
}
