import { FILE_STORE } from '../../config/setting-schemas.js';

/**
 * Whether a server's requests wait on another process, alive across turns of the event loop: on a shared store (Redis),
 * or forwarded to the bot's backend. Such a server lets its young generation grow (growYoungGenerationForWaitingRequests).
 */
export function requestsWait(settings: { store: string; upstream: unknown }): boolean {
  return settings.store !== FILE_STORE || settings.upstream !== undefined;
}
