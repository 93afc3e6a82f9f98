/** Polls `check` until it returns true, failing with `what` past the deadline: for what crosses Redis or a restart. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // Not yet: a call that fails counts as "not true yet" until the deadline.
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
