/**
 * A port's answer now, or later: a store holding the answer in memory (the JSON file's record, its attempt counts) gives it
 * at once; one that must ask another process (Redis) gives a promise. The login check reads through these, so on the
 * former it ends in the turn it started, with no promise made along the way
 * (docs/decisions/0040-reads-answered-at-once.md).
 */
export type Awaitable<T> = T | Promise<T>;

/** Whether `value` is still to come. */
export function isPending<T>(value: Awaitable<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `next(value)`: at once when `value` is here, once it comes when it is a promise. */
export function andThen<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return isPending(value) ? value.then(next) : next(value);
}

/**
 * `run()`'s answer, a throw turned into a rejected promise: a verb whose steps may answer at once still fails the way a
 * promise does, so a caller's rejection handler sees every failure.
 */
export function settled<T>(run: () => Awaitable<T>): Awaitable<T> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}
