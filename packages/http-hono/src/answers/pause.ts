/** Waits `ms` on the runtime's timer: how the HTTP transports wait out the global budget's delay (the core keeps no timers). */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
