import type { SecurityEventSink } from '../../domain/security-event.js';

/**
 * `value`, once `audit` has written every event recorded so far: the app and Node's fast path pass their
 * answers through it, so an answer never runs ahead of its audit line even when lines are written in groups.
 */
export function afterAuditWritten<T>(audit: SecurityEventSink, value: T): T | Promise<T> {
  const writing = audit.written?.();
  return writing ? writing.then(() => value) : value;
}
