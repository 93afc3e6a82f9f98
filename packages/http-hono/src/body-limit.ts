import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ConnectionInfo, WebuiEnv } from './app-env.js';
import { errorBody } from './error-body.js';
import { requestHeader } from './request-header.js';

/** DESIGN D14: request bodies over 16 KiB get 413. */
export const MAX_BODY_BYTES = 16 * 1024;
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function payloadTooLarge(c: Context): Response {
  return errorBody(c, 413, 'payload_too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
}

/**
 * Refuses bodies over MAX_BODY_BYTES before anything reads them. When the runtime reads bodies itself
 * (ConnectionInfo.readBody) and the length is declared, the check is the same Content-Length test as
 * hono's bodyLimit and the body is read later, straight from the connection; otherwise hono's bodyLimit.
 */
export function limitBody(connection: ConnectionInfo): MiddlewareHandler<WebuiEnv> {
  const honoLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: payloadTooLarge });
  const readBody = connection.readBody?.bind(connection);
  return (c, next) => {
    // A GET has no body to limit; reading raw.body on it would make the Node adapter build a full Request.
    if (BODYLESS_METHODS.has(c.req.method)) return next();
    if (readBody) {
      const length = requestHeader(c, 'content-length');
      if (length !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
        if (parseInt(length, 10) > MAX_BODY_BYTES) return Promise.resolve(payloadTooLarge(c));
        c.set('readBodyText', () => readBody(c, MAX_BODY_BYTES));
        return next();
      }
    }
    return limitStreamedBody(c, next);
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
