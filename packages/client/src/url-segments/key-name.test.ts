import { describe, expect, it } from 'vitest';
import { keyNameSegment } from './key-name.js';

describe('keyNameSegment', () => {
  it('leaves a valid name as it is and percent-encodes what a path segment cannot carry', () => {
    expect(keyNameSegment('ci-deploy_2.0')).toBe('ci-deploy_2.0');
    expect(keyNameSegment('a b/c%d?e#f')).toBe('a%20b%2Fc%25d%3Fe%23f');
  });

  it('refuses names no path segment can carry: empty, `.` and `..`', () => {
    for (const name of ['', '.', '..']) expect(() => keyNameSegment(name)).toThrow(TypeError);
  });
});
