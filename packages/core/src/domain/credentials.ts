import { isKeySession, type ApiKeys } from './api-keys.js';
import type { ApiKeyScope } from '../ports/store.js';
import type { TokenService, TokenStatus } from './tokens/token-service.js';

/**
 * Who a request acts as. `session` names what its WebSocket tickets and sockets belong to: the token
 * itself for the access token (a token change ends them), the key's hash for a key (revoking it ends them).
 */
export type Principal =
  | { kind: 'token'; session: string; status: TokenStatus }
  | { kind: 'key'; session: string; name: string; scope: ApiKeyScope; firstUse: boolean };

/** A presented secret that is not valid; `expiredKey` names a key that exists but has expired. */
export type Unauthenticated = { expiredKey?: string };

export type Authentication = { ok: true; principal: Principal } | ({ ok: false } & Unauthenticated);

/**
 * What a request needs: `read` (GET, the WebSocket), `admin` (any other state change), the two scopes an API key
 * can have; and the two only the access token may do: managing keys, and changing the token itself.
 */
export type Permission = 'read' | 'admin' | 'manage_keys' | 'change_token';

const SCOPE_PERMISSIONS: Record<ApiKeyScope, ReadonlySet<Permission>> = {
  read: new Set(['read']),
  admin: new Set(['read', 'admin']),
};

/** Whether `principal` may do what needs `permission`: the access token may do everything. */
export function permits(principal: Principal, permission: Permission): boolean {
  return principal.kind === 'token' || SCOPE_PERMISSIONS[principal.scope].has(permission);
}

/** The access token or an API key, whichever a presented secret is: one answer for cookies and bearers alike. */
export class Credentials {
  constructor(
    private readonly tokens: TokenService,
    private readonly keys: ApiKeys,
  ) {}

  async authenticate(secret: string): Promise<Authentication> {
    const status = await this.tokens.statusFor(secret);
    if (status) return { ok: true, principal: { kind: 'token', session: secret, status } };
    const key = await this.keys.check(secret);
    switch (key.kind) {
      case 'valid':
        return {
          ok: true,
          principal: { kind: 'key', session: key.session, name: key.entry.name, scope: key.entry.scope, firstUse: key.firstUse },
        };
      case 'expired':
        return { ok: false, expiredKey: key.entry.name };
      default:
        return { ok: false };
    }
  }

  /**
   * Who a session (a Principal's) acts as while it is valid, the token unchanged or the key neither revoked nor expired
   * (a ticket's session, a WebSocket's owner); null once it is not.
   */
  async principalOf(session: string): Promise<Principal | null> {
    if (isKeySession(session)) {
      const entry = await this.keys.liveEntry(session);
      // A socket is not a request: its opening is no key's first use, which the ticket's request already reported.
      return entry ? { kind: 'key', session, name: entry.name, scope: entry.scope, firstUse: false } : null;
    }
    const status = await this.tokens.statusFor(session);
    return status ? { kind: 'token', session, status } : null;
  }
}
