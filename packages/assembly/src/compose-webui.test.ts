import { FakeClock, SeededRandom } from '@webui/core/testing';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { composeWebui, memoryStorageFactory, type StorageFactory } from './compose-webui.js';
import { loadSettings } from './config/index.js';

class Lines extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.lines.push(chunk.toString());
    callback();
  }
}

const loaded = loadSettings({ argv: ['--data-dir', '/nonexistent/webui-compose'], env: {}, cwd: '/nonexistent' });

describe('composeWebui: the parts every runtime runs, from what the runtime brings', () => {
  it('builds the storage from the given factory, over the given clock, and the core over its store, clock and randomness', async () => {
    const clock = new FakeClock();
    const seen: Array<Parameters<StorageFactory>[0]> = [];
    const storage: StorageFactory = (made) => {
      seen.push(made);
      return memoryStorageFactory(made);
    };
    const logDestination = new Lines();
    const parts = composeWebui({ loaded, clock, random: new SeededRandom(3), logDestination, storage });
    expect(seen).toEqual([{ loaded, clock, logger: parts.logger, metrics: parts.metrics }]);
    await parts.storage.open();
    const outcome = await parts.core.tokens.bootstrap({ secretKeyFingerprint: 'fp' });
    expect(outcome).toBeDefined();
    expect(await parts.storage.store.record.readRecord()).not.toBeNull();
    await parts.storage.close();
  });

  it('logs to the destination the runtime gives', () => {
    const logDestination = new Lines();
    const parts = composeWebui({
      loaded,
      clock: new FakeClock(),
      random: new SeededRandom(3),
      logDestination,
      storage: memoryStorageFactory,
    });
    parts.logger.warn('composed');
    expect(logDestination.lines.join('')).toContain('composed');
  });
});
