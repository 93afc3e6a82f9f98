import { MemoryShortLivedState } from '@webui/core/memory';
import { FakeClock, storeConformanceCases } from '@webui/core/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { JsonFileStore } from './json-file-store.js';

// The file store as a server wires it: the record in the file, the short-lived state in core's memory.
describe('JsonFileStore conformance', () => {
  for (const c of storeConformanceCases(async () => {
    const root = mkdtempSync(join(tmpdir(), 'webui-store-conformance-'));
    const clock = new FakeClock();
    const record = new JsonFileStore({ dataDir: join(root, 'data'), clock });
    await record.open();
    const store = new MemoryShortLivedState(clock).storeWith(record);
    return {
      store,
      clock,
      // The instance lock lets one process own a data directory: its clients are the store itself.
      clients: async (count) => Array.from({ length: count }, () => store),
      cleanup: async () => {
        await record.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  })) {
    it(c.name, c.run);
  }
});
