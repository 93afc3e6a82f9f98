import { requiredScope, type RequiredScope } from '../middleware/access/scope-guard.js';
import type { DocumentedOperation } from './documented-operation.js';

/** An operation's credentials (OpenAPI `security`), the scope it needs (`x-webui-scope`, absent when public), and the sentence saying both. */
export interface OperationSecurity {
  security: Array<Record<string, never[]>>;
  scope: RequiredScope | undefined;
  sentence: string;
}

const SESSION: OperationSecurity['security'] = [{ botSession: [] }, { bearerAuth: [] }];
const SENTENCES: Record<RequiredScope, string> = {
  read: 'Scope `read`: the access token or any API key, as the `bot_session` cookie or `Authorization: Bearer`.',
  admin:
    'Scope `admin`: the access token or an `admin` API key, as the `bot_session` cookie or `Authorization: Bearer`; ' +
    'a `read` key gets 403 `insufficient_scope`.',
  access_token:
    'Scope `access_token`: the access token itself, as the `bot_session` cookie or `Authorization: Bearer`; ' +
    'an API key of either scope gets 403 `insufficient_scope`.',
};

/**
 * What the document says of who may call an operation: public ones need nothing; the others a session (the cookie or a
 * bearer) whose scope covers the method (a GET `read`, any other `admin`) or what the operation `needs` beyond it; the channel
 * a ticket from GET /ws-token, which any session may get (docs/decisions/0039-the-api-names-its-scopes.md).
 */
export function operationSecurity(operation: DocumentedOperation): OperationSecurity {
  if (operation.access === 'public') return { security: [], scope: undefined, sentence: 'Public: no credential.' };
  const scope = requiredScope(operation.needs ?? (operation.method === 'get' ? 'read' : 'admin'));
  if (operation.access === 'ticket') {
    return {
      security: [{ wsTicket: [] }],
      scope,
      sentence:
        `Scope \`${scope}\`: a one-time ticket from GET /ws-token as \`?token=\`, which any API key may get. On the channel, ` +
        'subscribing needs `read` and a call `admin` unless its domain says otherwise (a `read` key is answered `insufficient_scope`).',
    };
  }
  return { security: SESSION, scope, sentence: SENTENCES[scope] };
}
