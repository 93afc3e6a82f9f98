import { StoreUnavailableError } from '@webui/core';
import type { AppLogger } from '../app-env.js';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { jsonAnswer, type JsonAnswer } from './plain-answer.js';

/** The docs/decisions/0001-error-bodies.md body: a human `detail` and a snake_case `code`, beside any endpoint-specific fields. */
export function errorFields(code: string, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, detail, code };
}

/** Every non-2xx answer has this JSON `{detail, code}` body (docs/decisions/0001-error-bodies.md), sometimes with endpoint-specific fields beside it. */
export function errorBody(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  detail: string,
  extra: Record<string, unknown> = {},
): Response {
  return c.json(errorFields(code, detail, extra), status);
}

/**
 * The body of a 429, the error fields (docs/decisions/0001-error-bodies.md) plus `retry_after` (docs/decisions/0001-error-bodies.md, docs/decisions/0002-failed-verification-and-bans.md); Retry-After goes in the header too.
 * `server` scope: the global failure budget is spent, not this address's attempts.
 */
export function tooManyAttemptsFields(
  retryAfterSeconds: number,
  extra: Record<string, unknown> = {},
  scope: 'address' | 'server' = 'address',
): Record<string, unknown> {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait = `try again in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const detail =
    scope === 'address'
      ? `Too many failed attempts from this address; ${wait}.`
      : `Too many failed logins on this server from many addresses; ${wait}, or log in from an address in webui.ban_exempt.`;
  return errorFields('too_many_attempts', detail, {
    ...extra,
    retry_after: retryAfterSeconds,
  });
}

/** 429 with Retry-After in the header and the body (docs/decisions/0001-error-bodies.md, docs/decisions/0002-failed-verification-and-bans.md). */
export function tooManyAttempts(
  c: Context,
  retryAfterSeconds: number,
  extra: Record<string, unknown> = {},
  scope: 'address' | 'server' = 'address',
): Response {
  c.header('Retry-After', String(retryAfterSeconds));
  return c.json(tooManyAttemptsFields(retryAfterSeconds, extra, scope), 429);
}

/** Seconds a client waits before trying again while the state store is unreachable. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** 503 store_unavailable (docs/decisions/0016-shared-store-fails-closed.md): the store cannot be reached, so nothing is decided, counted or changed. */
export function storeUnavailableAnswer(): JsonAnswer {
  return jsonAnswer(
    503,
    errorFields('store_unavailable', 'The state store cannot be reached; nothing was changed. Try again shortly.', {
      retry_after: STORE_RETRY_AFTER_SECONDS,
    }),
    { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * A request that could not complete: an unreachable store fails closed with 503 (the store logs the
 * outage itself); anything else is logged with where it happened (never the request's secrets) and answered 500 with a generic error body (docs/decisions/0001-error-bodies.md).
 */
export function requestFailureAnswer(logger: AppLogger, error: unknown, path: string): JsonAnswer {
  if (error instanceof StoreUnavailableError) {
    logger.debug({ path }, 'request refused: the state store is unreachable');
    return storeUnavailableAnswer();
  }
  const { message, name } = error instanceof Error ? error : { message: String(error), name: 'Error' };
  logger.error({ err: { message, name }, path }, 'request failed');
  return jsonAnswer(500, errorFields('internal_error', 'The server could not complete the request; see its log.'));
}
