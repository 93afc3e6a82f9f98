import type { Context } from 'hono';
import type { ConnectionInfo } from './app-env.js';

/**
 * Sets a header before the answer exists: on the runtime's response when it can preset one
 * (then Hono builds no Headers object for the answer), else on the context.
 */
export function setAnswerHeader(c: Context, connection: ConnectionInfo, name: string, value: string, options?: { append: boolean }): void {
  if (connection.presetHeader?.(c, name, value) !== true) c.header(name, value, options);
}
