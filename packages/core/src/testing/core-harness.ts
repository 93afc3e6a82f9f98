import type { BanPolicyOptions } from '../domain/bans/ban-policy.js';
import { createCore } from '../create-core.js';
import { MemoryStore, type MemoryStoreLimits } from '../memory/memory-store.js';
import type { TokenRecord } from '../ports/store.js';
import { FakeClock } from './fake-clock.js';
import { SeededRandom } from './seeded-random.js';

/** The core over one in-memory store, a fake clock and seeded randomness. */
export function createCoreHarness(
  options: { record?: TokenRecord; seed?: number; banPolicy?: Partial<BanPolicyOptions>; limits?: Partial<MemoryStoreLimits> } = {},
) {
  const clock = new FakeClock();
  const random = new SeededRandom(options.seed ?? 1);
  const store = new MemoryStore(clock, { record: options.record ?? null, limits: options.limits ?? {} });
  return { clock, random, store, ...createCore({ store, clock, random, banPolicy: options.banPolicy }) };
}
