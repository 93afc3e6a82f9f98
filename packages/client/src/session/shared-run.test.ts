import { describe, expect, it } from 'vitest';
import { sharedRun } from './shared-run.js';

/** A task that runs until the test settles it, recording the signal it was given. */
function controllableTask() {
  const runs: Array<{ signal: AbortSignal; resolve: (value: string) => void }> = [];
  const task = (signal: AbortSignal) => new Promise<string>((resolve) => runs.push({ signal, resolve }));
  return { runs, task };
}

describe('sharedRun', () => {
  it('runs the task once for every caller that asks while it is under way, and again after it settled', async () => {
    const { runs, task } = controllableTask();
    const run = sharedRun(task);
    const first = run();
    const second = run();
    expect(runs).toHaveLength(1);
    runs[0]?.resolve('logged in');
    expect(await Promise.all([first, second])).toEqual(['logged in', 'logged in']);
    const third = run();
    expect(runs).toHaveLength(2);
    runs[1]?.resolve('again');
    expect(await third).toBe('again');
  });

  it('lets a caller that aborts leave at once, and cancels the run only when the last caller has left', async () => {
    const { runs, task } = controllableTask();
    const run = sharedRun(task);
    const patient = new AbortController();
    const hasty = new AbortController();
    const waiting = run(patient.signal);
    const leaving = run(hasty.signal);

    hasty.abort();
    await expect(leaving).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs[0]?.signal.aborted).toBe(false);

    patient.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs[0]?.signal.aborted).toBe(true);
  });

  it('never cancels a run a caller without a signal waits for', async () => {
    const { runs, task } = controllableTask();
    const run = sharedRun(task);
    const hasty = new AbortController();
    const leaving = run(hasty.signal);
    const waiting = run();
    hasty.abort();
    await expect(leaving).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs[0]?.signal.aborted).toBe(false);
    runs[0]?.resolve('done');
    expect(await waiting).toBe('done');
    await expect(run(AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    expect(runs).toHaveLength(1);
  });
});
