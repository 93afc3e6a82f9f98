import { describe, expect, it } from 'vitest';
import { RequestRate, SUBSCRIBE_RATE, type Admission } from './request-rate.js';

const LIMITS = { burst: 4, perSecond: 2, overdraft: 3 };

function bucket(limits = LIMITS) {
  const clock = { now: 1_000 };
  const rate = new RequestRate(limits, () => clock.now);
  const take = (count: number): Admission[] => Array.from({ length: count }, () => rate.take());
  return { clock, take };
}

describe('RequestRate: a token bucket with an overdraft', () => {
  it('takes the burst at once, refuses past it, and says flooding once the overdraft is spent', () => {
    const { take } = bucket();
    expect(take(4)).toEqual(['admitted', 'admitted', 'admitted', 'admitted']);
    expect(take(2)).toEqual(['refused', 'refused']);
    expect(take(1)).toEqual(['flooding']);
  });

  it('refills perSecond over time, never past the burst', () => {
    const { clock, take } = bucket();
    take(4);
    clock.now += 500;
    expect(take(2)).toEqual(['admitted', 'refused']);
    clock.now += 60_000;
    expect(take(5)).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'refused']);
  });

  it('a refused request still costs a token: only a client that waits is let in again', () => {
    const { clock, take } = bucket();
    take(4);
    expect(take(2)).toEqual(['refused', 'refused']);
    // Two tokens of debt: one second brings the bucket back to 0, the next request is still refused.
    clock.now += 1_000;
    expect(take(1)).toEqual(['refused']);
    clock.now += 1_000;
    expect(take(1)).toEqual(['admitted']);
  });

  it('a clock stepped back refills nothing', () => {
    const { clock, take } = bucket();
    take(4);
    clock.now -= 60_000;
    expect(take(1)).toEqual(['refused']);
  });

  it("the channel's default lets a dashboard's reconnect through (two subscribes to each of four topics)", () => {
    const { take } = bucket(SUBSCRIBE_RATE);
    expect(take(8).every((admission) => admission === 'admitted')).toBe(true);
    expect(SUBSCRIBE_RATE).toEqual({ burst: 16, perSecond: 4, overdraft: 32 });
  });
});
