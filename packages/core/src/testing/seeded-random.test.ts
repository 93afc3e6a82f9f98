import { describe, expect, it } from 'vitest';
import { SeededRandom } from './seeded-random.js';

describe('SeededRandom', () => {
  it('is deterministic per seed, differs between seeds, and defaults to seed 1', () => {
    expect(new SeededRandom(5).bytes(32)).toEqual(new SeededRandom(5).bytes(32));
    expect(new SeededRandom(5).bytes(32)).not.toEqual(new SeededRandom(6).bytes(32));
    expect(new SeededRandom().bytes(16)).toEqual(new SeededRandom(1).bytes(16));
  });

  it('gives the requested number of bytes and keeps going', () => {
    const random = new SeededRandom(1);
    const first = random.bytes(8);
    expect(first).toHaveLength(8);
    expect(random.bytes(8)).not.toEqual(first);
    expect(random.bytes(0)).toHaveLength(0);
  });
});
