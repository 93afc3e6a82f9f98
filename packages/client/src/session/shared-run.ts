import { unlessAborted } from './call-signal.js';

/**
 * One run of `task` for every caller that asks while it is under way (one login for every request that hit the same 401);
 * a caller that aborts leaves at once, and the run is cancelled when the last caller has left.
 */
export function sharedRun<T>(task: (signal: AbortSignal) => Promise<T>): (signal?: AbortSignal) => Promise<T> {
  let current: { result: Promise<T>; controller: AbortController; callers: number } | undefined;
  return (signal) => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!current) {
      const controller = new AbortController();
      const run = {
        controller,
        callers: 0,
        result: task(controller.signal).finally(() => {
          if (current === run) current = undefined;
        }),
      };
      current = run;
    }
    const run = current;
    run.callers++;
    const leave = () => {
      if (--run.callers === 0) run.controller.abort(signal?.reason);
    };
    signal?.addEventListener('abort', leave, { once: true });
    const result = unlessAborted(run.result, signal);
    void run.result.then(
      () => signal?.removeEventListener('abort', leave),
      () => signal?.removeEventListener('abort', leave),
    );
    return result;
  };
}
