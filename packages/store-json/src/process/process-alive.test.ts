import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processIsAlive } from './process-alive.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('processIsAlive', () => {
  it('is true for a running process and false for one that has exited', () => {
    expect(processIsAlive(process.pid)).toBe(true);
    const exited = spawnSync(process.execPath, ['-e', '0']);
    expect(exited.pid).toBeGreaterThan(0);
    expect(processIsAlive(exited.pid as number)).toBe(false);
  });

  it('is true for a process of another user (EPERM)', () => {
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    expect(processIsAlive(1)).toBe(true);
  });

  it('is true when the runtime refuses to signal at all (Deno without --allow-run): nothing of a live server is taken', () => {
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('Requires run access, run again with the --allow-run flag'), { name: 'NotCapable' });
    });
    expect(processIsAlive(424_242)).toBe(true);
  });
});
