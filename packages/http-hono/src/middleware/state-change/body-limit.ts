import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { WebuiEnv } from '../../app-env.js';
import { errorBody } from '../../answers/error-body.js';
import { requestHeader, runtimeBodyReader } from '../../runtime-port.js';
import { isSafeMethod } from './safe-methods.js';

/** docs/decisions/0014-bounded-memory.md: request bodies over 16 KiB get 413. */
export const MAX_BODY_BYTES = 16 * 1024;

export function payloadTooLarge(c: Context): Response {
  return errorBody(c, 413, 'payload_too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
}

/** A Content-Length without Transfer-Encoding: the length the body will have, known before it is read. */
function declaredLength(c: Context): string | undefined {
  const length = requestHeader(c, 'content-length');
  return length !== undefined && requestHeader(c, 'transfer-encoding') === undefined ? length : undefined;
}

/**
 * Refuses bodies over MAX_BODY_BYTES before anything reads them: a declared length is checked as
 * hono's bodyLimit checks it (through requestHeader, so the runtime's speed-up serves it), a streamed
 * body is counted by hono's bodyLimit as it is read.
 */
export function limitBody(): MiddlewareHandler<WebuiEnv> {
  const honoLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: payloadTooLarge });
  return (c, next) => {
    // A GET has no body to limit; reading raw.body on it would make the Node adapter build a full Request.
    if (isSafeMethod(c.req.method)) return next();
    const length = declaredLength(c);
    if (length === undefined) return limitStreamedBody(c, next);
    return parseInt(length, 10) > MAX_BODY_BYTES ? Promise.resolve(payloadTooLarge(c)) : next();
  };

  /** hono's bodyLimit, which reads a body without Content-Length to count it; a stream that breaks there is the client's doing. */
  async function limitStreamedBody(c: Context<WebuiEnv>, next: Next): Promise<Response | void> {
    let passedOn = false;
    try {
      return await honoLimit(c, () => {
        passedOn = true;
        return next();
      });
    } catch (error) {
      // Errors from the steps after the limit are theirs to answer.
      if (passedOn) throw error;
      return errorBody(c, 400, 'incomplete_body', 'The request body broke off before it ended.');
    }
  }
}

/**
 * The request body as text, null when it is over the limit: read by the runtime when it can and the
 * length was declared, else through Hono (behind bodyLimit's count for a streamed body).
 */
export function readBodyText(c: Context): Promise<string | null> {
  const runtimeReader = declaredLength(c) === undefined ? undefined : runtimeBodyReader(c);
  return runtimeReader ? runtimeReader(MAX_BODY_BYTES) : c.req.text();
}
