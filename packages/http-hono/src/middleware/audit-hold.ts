import type { SecurityEventSink } from '@webui/core';
import type { MiddlewareHandler } from 'hono';
import type { WebuiEnv } from '../app-env.js';

/**
 * Holds every answer, refusals included, until `audit` has written the events recorded so far: a sink that
 * writes in groups (the audit file) could otherwise let an answer run ahead of its line. First in the pipeline
 * so it waits last; undefined for a sink that writes at once, so the pipeline has no step for it.
 */
export function holdAnswerUntilAudited(audit: SecurityEventSink): MiddlewareHandler<WebuiEnv> | undefined {
  const written = audit.written?.bind(audit);
  if (written === undefined) return undefined;
  return async (c, next) => {
    await next();
    // null when no line waits: no extra turn of the event loop then.
    const writing = written();
    if (writing) await writing;
  };
}
