import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Keeps the heap near what is live, so memory stays bounded under a flood of requests (docs/decisions/0014-bounded-memory.md).
 * Left alone, V8 lets garbage pile up to several hundred megabytes before collecting, because
 * nothing presses it to; live data stays at tens of megabytes whatever clients do. Both flags are
 * read at every collection, so setting them once at startup is enough.
 */
export function keepHeapTight(): void {
  // The old generation may grow a fifth past what survived the last full collection (V8 allows up to 4x).
  setFlagsFromString('--heap-growing-percent=20');
  // The young generation keeps its starting size instead of doubling on a busy server: grown to V8's 16 MiB semi-spaces,
  // a busy server forwarded about 3 us faster, but the soak's flood of addresses and tickets then held 170 to 180 MB.
  setFlagsFromString('--semi-space-growth-factor=1');
}

type YoungCollection = () => void;
let youngCollection: YoungCollection | undefined;

/**
 * A young-generation collection, for a relay that moves large bodies: each socket read is a fresh 64 KiB buffer outside
 * the JS heap, freed only when a collection finds it dead, and piping a body allocates too little on the heap to cause
 * one, so a 50 MB download left tens of megabytes of read buffers waiting (measured with the bench's memory check).
 * V8 offers the collection only through its `gc` extension, taken once here in a context of its own.
 */
export function collectYoungGeneration(): void {
  if (youngCollection === undefined) {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
    youngCollection = () => gc({ type: 'minor' });
  }
  youngCollection();
}

/**
 * Counts the bytes a relay moves and runs a young-generation collection (collectYoungGeneration) after each MiB: one
 * counter per relayed body.
 */
export function collectEveryMiB(): (bytes: number) => void {
  let relayed = 0;
  return (bytes) => {
    relayed += bytes;
    if (relayed < COLLECT_EVERY_BYTES) return;
    relayed = 0;
    collectYoungGeneration();
  };
}

const COLLECT_EVERY_BYTES = 1024 * 1024;
