import { vi } from 'vitest';

/** Waits until `check` returns true, failing with `what` past the deadline: for what crosses Redis or a restart. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  // A call that fails counts as "not true yet" until the deadline, as vi.waitFor treats any throw.
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`${what}: not within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}
