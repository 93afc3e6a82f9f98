/** What every call of the client takes last. */
export interface CallOptions {
  /**
   * Aborting it rejects the call with the signal's reason (a DOMException `AbortError` by default) and closes the request under
   * way; `AbortSignal.timeout(ms)` bounds one call.
   */
  signal?: AbortSignal | undefined;
}

/** The signal one request goes with: the caller's, and the client's timeout (a DOMException `TimeoutError`); 0 is none. */
export function requestSignal(caller: AbortSignal | undefined, timeoutMs: number): AbortSignal | undefined {
  if (timeoutMs === 0 || timeoutMs === Infinity) return caller;
  const timeout = AbortSignal.timeout(timeoutMs);
  return caller ? AbortSignal.any([caller, timeout]) : timeout;
}

/** Settles as `work` does, or rejects with the signal's reason as soon as it aborts (`work` itself is not stopped). */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts, its timer cleared. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
