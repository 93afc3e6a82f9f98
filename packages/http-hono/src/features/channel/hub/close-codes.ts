/** The largest message a client may send; bigger ones close the socket with 1009. The runtime's socket enforces it too. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
export const CLOSE_TOKEN_CHANGED = 4001;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_MESSAGE_TOO_BIG = 1009;
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** Why a session's sockets close with 4001: the close reason a client shows. */
export type SessionEnd = 'token_changed' | 'key_revoked';
export const SESSION_END_REASONS: Record<SessionEnd, string> = { token_changed: 'access token changed', key_revoked: 'API key revoked' };
