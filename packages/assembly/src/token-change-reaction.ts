import type { Store } from '@webui/core';
import type { WsHub } from '@webui/http-hono';

/**
 * Sockets of a token that stopped being valid close at once with 4001 (DESIGN D13). The Store reports
 * every change, the API's own, the CLI's and hand edits alike, so this is the one place that reacts;
 * the core revokes the tickets the same way.
 */
export function closeSocketsOnTokenChange(store: Store, hub: WsHub): () => void {
  return store.onRecordChanged((record, previous) => {
    if (previous && record?.accessToken !== previous.accessToken) hub.revokeSession(previous.accessToken);
  });
}
