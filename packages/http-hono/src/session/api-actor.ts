import type { Actor } from '@webui/core';
import type { Context } from 'hono';
import type { WebuiEnv } from '../app-env.js';

/** The client of an API request, as the edge resolved it, and the credential the session guard accepted. */
export function apiActor(c: Context<WebuiEnv>): Actor {
  const principal = c.get('principal');
  return { address: c.get('clientIp'), via: 'api', ...(principal ? { credential: principal.kind } : {}) };
}
