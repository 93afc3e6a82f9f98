import { StoreUnavailableError } from '@webui/core';
import { errorMessage } from '@webui/core/adapter';

// Replies that mean "not now" rather than "wrong request": a loading, read-only, locked, unauthenticated, full (OOM under
// noeviction) or failing-over server, or a script that reached it past its deadline (../lua/script-deadline.ts).
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|READONLY|NOAUTH|WRONGPASS|MASTERDOWN|TRYAGAIN|OOM|MISCONF|NOREPLICAS|CLUSTERDOWN|LATE)\b/;

/**
 * What a failed Redis call means for the caller: the server cannot be reached or cannot serve now
 * (StoreUnavailableError, answered 503), or the request itself was wrong (a bug, passed on as it is).
 */
export function storeFailure(address: string, error: unknown): Error {
  if (error instanceof StoreUnavailableError) return error;
  const message = errorMessage(error);
  const isReply = error instanceof Error && error.name === 'ReplyError';
  if (isReply && !UNAVAILABLE_REPLIES.test(message)) return error;
  return new StoreUnavailableError(`Redis at ${address} is unavailable: ${message}`, { cause: error });
}
