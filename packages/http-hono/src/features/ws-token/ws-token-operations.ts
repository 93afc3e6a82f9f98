import { WsTokenAmbiguousBody, WsTokenResponse, WsTokenTooManyBody } from '../../schemas.js';
import { banned, type Operation } from '../../openapi/documented-operation.js';

/** GET /ws-token. */
export const WS_TOKEN_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/ws-token',
    summary: 'One-time WebSocket ticket',
    description: 'Valid 60 seconds, single use, bound to the session. Without a session it answers 200 with success:false, not 401.',
    access: 'session-or-200',
    responses: {
      200: { description: 'A ticket, or success:false without a session.', schema: WsTokenResponse },
      400: { description: 'More than one credential, with success:false; counted as one failed attempt.', schema: WsTokenAmbiguousBody },
      429: { ...banned, schema: WsTokenTooManyBody },
    },
  },
];
