import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.js';

describe('FakeClock', () => {
  it('starts at 2026-01-01T00:00:00Z unless told otherwise', () => {
    expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
    expect(new FakeClock(42).now()).toBe(42);
  });

  it('moves only when told to, and chains', () => {
    const clock = new FakeClock(0);
    expect(clock.now()).toBe(0);
    expect(clock.advance(5).advanceSeconds(2).advanceMinutes(1).now()).toBe(5 + 2_000 + 60_000);
    expect(clock.set(7).now()).toBe(7);
  });
});
