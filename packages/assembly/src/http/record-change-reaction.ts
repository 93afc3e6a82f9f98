import { revokedKeys, type BootstrapOutcome, type SecurityEventSink, type Store } from '@webui/core';
import type { WsHub } from '@webui/http-hono';

/**
 * What a change of the durable record sets off, whoever made it (the API, the CLI through the server, a
 * hand edit): sockets of a token that stopped being valid or of a revoked key close at once with 4001
 * (docs/decisions/0013-websocket-channel.md); a change made outside this process is audited as a hand edit (this process audits its own
 * where it makes them, with who asked, and so does another instance sharing the store). The core revokes the tickets the same way.
 */
export function reactToRecordChanges(store: Pick<Store, 'record'>, hub: WsHub, audit: SecurityEventSink): () => void {
  return store.record.onRecordChanged((record, previous, origin) => {
    if (!previous) return;
    const revoked = revokedKeys(previous.apiKeys, record?.apiKeys);
    for (const { session } of revoked) hub.revokeSession(session, 'key_revoked');
    const tokenChanged = record?.accessToken !== previous.accessToken;
    if (tokenChanged) hub.revokeSession(previous.accessToken);
    if (origin !== 'elsewhere') return;
    if (tokenChanged) audit.record({ event: 'token_changed', address: null, via: 'hand_edit', how: 'hand_edit' });
    for (const { name } of revoked) audit.record({ event: 'key_revoked', address: null, via: 'hand_edit', key: name });
  });
}

/** What a start did to the token, for the audit trail: a fresh temporary token, or every session revoked by a new secret_key. */
export function auditBootstrap(outcome: BootstrapOutcome, audit: SecurityEventSink): void {
  if (outcome.reason === 'secret_key_changed') {
    audit.record({ event: 'sessions_revoked', address: null, via: 'startup', reason: 'secret_key_changed' });
    audit.record({ event: 'token_changed', address: null, via: 'startup', how: 'secret_key_changed' });
  } else if (outcome.reason === 'temporary_renewed' || outcome.reason === 'created') {
    audit.record({ event: 'token_changed', address: null, via: 'startup', how: 'temporary' });
  }
}
