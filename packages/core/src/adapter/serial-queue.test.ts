import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue.js';

describe('SerialQueue', () => {
  it('runs tasks one after another, in order, even when earlier ones are slower', async () => {
    const queue = new SerialQueue();
    const order: string[] = [];
    let finishSlow: () => void = () => undefined;
    const slowHeld = new Promise<void>((resolve) => (finishSlow = resolve));
    const slow = queue.run(async () => {
      await slowHeld;
      order.push('slow');
    });
    const fast = queue.run(async () => {
      order.push('fast');
    });
    // A turn of the event loop runs every queued microtask: a queue that let `fast` overtake would have run it by now.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    finishSlow();
    await Promise.all([slow, fast]);
    expect(order).toEqual(['slow', 'fast']);
  });

  it('keeps going after a failed task and reports the failure to its caller only', async () => {
    const queue = new SerialQueue();
    await expect(queue.run(async () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    await expect(queue.run(async () => 42)).resolves.toBe(42);
    await queue.idle();
  });
});
