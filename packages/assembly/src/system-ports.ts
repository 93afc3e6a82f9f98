import type { Clock, RandomSource } from '@webui/core';

/** Wall-clock time, the core's Clock in every deployment. */
export const systemClock: Clock = { now: () => Date.now() };

/** Web Crypto: the same cryptographically secure source on Node, Bun and Deno. */
export const systemRandom: RandomSource = { bytes: (length) => crypto.getRandomValues(new Uint8Array(length)) };
