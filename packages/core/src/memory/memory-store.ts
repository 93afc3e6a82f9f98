import { MemoryRecord } from './memory-record.js';
import { MemoryShortLivedState, type MemoryStoreLimits } from './memory-short-lived-state.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { TokenRecord } from '../ports/token-record.js';

export { DEFAULT_MEMORY_STORE_LIMITS, type MemoryStoreLimits } from './memory-short-lived-state.js';

/** The whole Store in memory, the durable record included: for tests and `--memory` quick starts. */
export class MemoryStore extends MemoryShortLivedState implements Store {
  readonly record: MemoryRecord;

  constructor(
    clock: Clock,
    options: { record?: TokenRecord | null; limits?: Partial<MemoryStoreLimits>; onListenerError?: (error: unknown) => void } = {},
  ) {
    super(clock, options.limits);
    this.record = new MemoryRecord(options.record ?? null, options.onListenerError);
  }
}
