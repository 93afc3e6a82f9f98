/**
 * The in-memory store: `MemoryShortLivedState`, the four short-lived ports bounded and swept (what every
 * single-process server keeps, the JSON file store's included), and `MemoryStore`, the whole `Store` in memory.
 */
export { MemoryStore } from './memory-store.js';
export { MemoryShortLivedState, DEFAULT_MEMORY_STORE_LIMITS, type MemoryStoreLimits } from './memory-short-lived-state.js';
