import { describe, expect, it } from 'vitest';
import { rememberVerdicts } from './remembered-verdicts.js';

/** A Host test that counts how often it really ran. */
function countingCheck(answer: (host: string) => boolean) {
  const runs: string[] = [];
  return { runs, check: (host: string) => (runs.push(host), answer(host)) };
}

describe('rememberVerdicts', () => {
  it("gives the check's own answers, true and false, and runs it once per Host value", () => {
    const { runs, check } = countingCheck((host) => host.startsWith('127.0.0.1'));
    const remembered = rememberVerdicts(check);
    for (let i = 0; i < 3; i++) {
      expect(remembered('127.0.0.1:8001')).toBe(true);
      expect(remembered('evil.example')).toBe(false);
    }
    expect(runs).toEqual(['127.0.0.1:8001', 'evil.example']);
  });

  it('keeps at most 64 Hosts: a flood of made-up ones evicts the oldest, which is then checked again', () => {
    const { runs, check } = countingCheck(() => true);
    const remembered = rememberVerdicts(check);
    remembered('localhost:8001');
    for (let i = 0; i < 64; i++) remembered(`flood-${i}.example`);
    expect(runs).toHaveLength(65);
    remembered('flood-63.example');
    expect(runs).toHaveLength(65);
    remembered('localhost:8001');
    expect(runs).toHaveLength(66);
    expect(runs.at(-1)).toBe('localhost:8001');
  });

  it('keeps one memory per check it wraps', () => {
    const strict = rememberVerdicts(() => false);
    const lenient = rememberVerdicts(() => true);
    expect(strict('localhost')).toBe(false);
    expect(lenient('localhost')).toBe(true);
  });
});
