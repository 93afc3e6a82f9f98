import { describe, expect, it } from 'vitest';
import { OncePerWindow } from './once-per-window.js';

describe('OncePerWindow', () => {
  it('lets a key through once per window, counting the events held back into the next', () => {
    const window = new OncePerWindow<string>(60_000);
    expect(window.due('a', 0)).toBe(0);
    expect(window.due('a', 59_999)).toBeNull();
    expect(window.due('a', 30_000)).toBeNull();
    // Another key has a window of its own.
    expect(window.due('b', 30_000)).toBe(0);
    expect(window.due('a', 60_000)).toBe(2);
    expect(window.due('a', 60_001)).toBeNull();
  });

  it('remembers at most maxKeys keys, forgetting the one logged longest ago', () => {
    const window = new OncePerWindow<string>(60_000, 2);
    window.due('a', 0);
    window.due('b', 1);
    window.due('a', 70_000);
    window.due('c', 70_001);
    // b was logged longest ago and is forgotten: its next event is logged at once.
    expect(window.due('b', 70_002)).toBe(0);
    expect(window.due('c', 70_003)).toBeNull();
  });
});
