import { setFlagsFromString } from 'node:v8';

/**
 * Keeps the heap near what is live, so memory stays bounded under a flood of requests (docs/decisions/0014-bounded-memory.md).
 * Left alone, V8 lets garbage pile up to several hundred megabytes before collecting, because
 * nothing presses it to; live data stays at tens of megabytes whatever clients do. Both flags are
 * read at every collection, so setting them once at startup is enough.
 */
export function keepHeapTight(): void {
  // The old generation may grow a fifth past what survived the last full collection (V8 allows up to 4x).
  setFlagsFromString('--heap-growing-percent=20');
  // The young generation keeps its starting size instead of doubling on a busy server.
  setFlagsFromString('--semi-space-growth-factor=1');
}
