import { MemoryStore } from '@webui/core/memory';
import { FakeClock, storeConformanceCases } from '@webui/core/testing';
import { describe, it } from 'vitest';

// The reference adapter passes the same suite, so a failure here is a suite bug, not an adapter bug.
describe('MemoryStore conformance', () => {
  for (const c of storeConformanceCases(async () => {
    const clock = new FakeClock();
    const store = new MemoryStore(clock);
    return { store, clock, clients: async (count) => Array.from({ length: count }, () => store) };
  })) {
    it(c.name, c.run);
  }
});
