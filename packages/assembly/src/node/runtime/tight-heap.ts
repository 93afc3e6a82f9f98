import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How large the young generation may grow on a server whose requests wait on another process: 16 MiB. Requests waiting on
 * a shared store (Redis) or on the bot's backend are alive at every minor collection, which copies them all: held at its
 * start, a login on Redis spent a third of its CPU collecting (issue 44). At 8 MiB a Redis login under load still met a
 * collection every 3 ms (17 % of its time); at 16 MiB it took 15 to 25 % less CPU (Redis /auth/verify, 4 alternating
 * rounds) for about 20 MB more RSS at its peak, and the relay's unread-socket soak grew by 29 MB (limit 100). The soak's
 * flood runs on the JSON file, which keeps it small (keepHeapTight).
 */
export const YOUNG_GENERATION_BYTES = 16 * 1024 * 1024;

/**
 * Keeps the heap near what is live, so memory stays bounded under a flood of requests (docs/decisions/0014-bounded-memory.md).
 * Left alone, V8 lets garbage pile up to several hundred megabytes before collecting, because
 * nothing presses it to; live data stays at tens of megabytes whatever clients do. Both flags are
 * read at every collection, so setting them at run time works. The young generation keeps its starting size: where a
 * request ends in the turn it started (the JSON file's logins and session checks), a small one stays in the CPU's
 * caches, and grown to 8 MiB the session check ran 4 % slower. A server whose requests wait lets it grow
 * (growYoungGenerationForWaitingRequests).
 */
export function keepHeapTight(): void {
  // The old generation may grow a fifth past what survived the last full collection (V8 allows up to 4x).
  setFlagsFromString('--heap-growing-percent=20');
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * For a server whose requests wait on another process (a Redis store, the bot's backend behind the gateway): the young
 * generation may grow to YOUNG_GENERATION_BYTES while much survives its collections. Returns the stop.
 */
export function growYoungGenerationForWaitingRequests(): () => void {
  return holdYoungGeneration(YOUNG_GENERATION_BYTES);
}

/**
 * Lets V8 double the young generation, as it does when much survives a minor collection, only while it is below `bytes`;
 * from then on it keeps its size (V8 may still shrink it when idle, and may grow it again once busy). The flag is read at every
 * collection and set after each is reported, so it may pass the limit by a doubling before it holds. Returns the stop.
 */
export function holdYoungGeneration(bytes: number): () => void {
  let growing: boolean | null = null;
  const hold = (): void => {
    const grow = youngGenerationBytes() < bytes;
    if (grow === growing) return;
    growing = grow;
    setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
  };
  hold();
  // After each batch of collections reported (a minor one is where V8 grows it).
  const observer = new PerformanceObserver(hold);
  observer.observe({ type: 'gc' });
  return () => observer.disconnect();
}

/** The young generation's memory now: V8's new space, both semispaces (the second is taken at the first minor collection). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
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
