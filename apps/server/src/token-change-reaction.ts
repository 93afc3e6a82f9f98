import type { WsHub } from '@webui/http-hono';
import type { JsonFileStore } from '@webui/store-json';

/**
 * Sockets and tickets of a token that stopped being valid die at once (DESIGN D13). The store reports
 * every change, the API's own, the CLI's and hand edits alike, so this is the one place that reacts.
 */
export function closeSocketsOnTokenChange(store: JsonFileStore, hub: WsHub): void {
  store.onRecordChanged((record, previous) => {
    if (previous && record?.accessToken !== previous.accessToken) {
      hub.revokeSession(previous.accessToken);
      void store.revokeTickets(previous.accessToken);
    }
  });
}
