import type { Store } from '@webui/core';

const BANNED = 50;
const IN_FLIGHT = 200;

/**
 * Bans 50 client keys, then counts one failure for each of `addresses` new keys (200 at a time), as a botnet's flood would;
 * answers how many of the 50 bans are still running afterwards and how many flood keys were kept counting (the cap's worth).
 */
export async function floodKeepsBans(store: Store, at: number, addresses: number): Promise<{ bansKept: number; counted: number }> {
  const rule = { windowStart: at - 300_000, banUntil: at + 600_000, keepUntil: at + 300_000 };
  for (let i = 0; i < BANNED; i++) await store.attempts.countFailure(`198.51.100.${i}`, { at, threshold: 1, ...rule });
  let counted = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < addresses; i = next++) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const tally = await store.attempts.countFailure(address, { at, threshold: 5, ...rule });
      if (tally.kind === 'counted') counted += 1;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  let bansKept = 0;
  for (let i = 0; i < BANNED; i++) if ((await store.attempts.readAttempts(`198.51.100.${i}`))?.bannedUntil === at + 600_000) bansKept += 1;
  return { bansKept, counted };
}
