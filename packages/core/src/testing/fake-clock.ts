import type { Clock } from '../ports/clock.js';

/** A clock that moves only when told to, for testing windows, bans and expiry to the millisecond. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): this {
    this.current += ms;
    return this;
  }

  advanceSeconds(seconds: number): this {
    return this.advance(seconds * 1000);
  }

  advanceMinutes(minutes: number): this {
    return this.advance(minutes * 60_000);
  }

  set(epochMs: number): this {
    this.current = epochMs;
    return this;
  }
}
