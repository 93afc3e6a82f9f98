import type { RetiredTokenStore } from '../../ports/retired-token-store.js';
import { expectEqual, withHarness, type PortHarness, type StoreConformanceCase } from './conformance-case.js';

/** What every RetiredTokenStore must do: remember each fingerprint until its own time. */
export function retiredTokenConformanceCases(makeHarness: () => Promise<PortHarness<RetiredTokenStore>>): StoreConformanceCase[] {
  return [
    {
      name: 'retireToken is remembered per fingerprint until `until`',
      run: withHarness(makeHarness, async ({ store, clock }) => {
        const fingerprint = 'ab'.repeat(32);
        expectEqual(await store.isRetiredToken(fingerprint), false, 'a fingerprint never retired');
        await store.retireToken(fingerprint, clock.now() + 1_000);
        await store.retireToken('cd'.repeat(32), clock.now() + 5_000);
        expectEqual(await store.isRetiredToken(fingerprint), true, 'a retired fingerprint');
        expectEqual(await store.isRetiredToken('ef'.repeat(32)), false, 'another fingerprint');
        clock.advance(999);
        expectEqual(await store.isRetiredToken(fingerprint), true, 'a retired fingerprint 1 ms before until');
        clock.advance(1);
        expectEqual(await store.isRetiredToken(fingerprint), false, 'a retired fingerprint at until');
        expectEqual(await store.isRetiredToken('cd'.repeat(32)), true, 'a fingerprint retired for longer');
      }),
    },
  ];
}
