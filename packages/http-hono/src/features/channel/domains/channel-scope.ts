import { permits, type Principal } from '@webui/core';

/** What a principal must cover to subscribe to a domain or call a method: `read` (any session or key) or `admin`. */
export type ChannelScope = 'read' | 'admin';

export const CHANNEL_SCOPES: readonly ChannelScope[] = ['read', 'admin'];

/** What subscribing to a domain (and calling it at all) needs when the domain does not say. */
export const DEFAULT_DOMAIN_SCOPE: ChannelScope = 'read';

/** What a call needs when its method does not say: `admin`, since a call changes state as a POST does. */
export const DEFAULT_CALL_SCOPE: ChannelScope = 'admin';

/** What a message to a relayed domain needs: the bot's domains and methods are unknown here, so they get a mounted one's defaults. */
export function relayedScope(op: 'subscribe' | 'unsubscribe' | 'call'): ChannelScope {
  return op === 'call' ? DEFAULT_CALL_SCOPE : DEFAULT_DOMAIN_SCOPE;
}

/** Why a domain's scope or topics cannot be served, or null: checked when a ChannelDomain is made and when any port is registered. */
export function domainShapeProblem(scope: unknown, topics: readonly unknown[] | undefined): string | null {
  if (!CHANNEL_SCOPES.includes(scope as ChannelScope)) return `scope must be 'read' or 'admin'`;
  if (topics !== undefined && (topics.length === 0 || !topics.every((topic) => typeof topic === 'string' && topic !== '')))
    return 'topics must be a non-empty list of non-empty names';
  return null;
}

/** The access token covers both; a key covers its own scope (an admin key covers read too). */
export function coversScope(principal: Principal, scope: ChannelScope): boolean {
  return permits(principal, scope);
}

/** The answer to a subscribe or call the principal's scope does not cover; only a read key is ever refused. */
export function insufficientScope(what: string, scope: ChannelScope): { ok: false; code: 'insufficient_scope'; message: string } {
  return { ok: false, code: 'insufficient_scope', message: `${what} needs the ${scope} scope; this API key has read only.` };
}
