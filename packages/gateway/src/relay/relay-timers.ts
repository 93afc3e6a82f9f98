/** The timers the relay and the merged log view wait with; tests pass a fake clock. */
export interface RelayTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_TIMERS: RelayTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 30_000;

/** The delay before reconnect attempt `retries` (0-based): 1 s doubling to 30 s. */
export function retryDelayMs(retries: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.min(retries, 16), MAX_RETRY_MS);
}
