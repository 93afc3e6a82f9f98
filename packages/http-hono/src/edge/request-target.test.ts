import { describe, expect, it } from 'vitest';
import { hasUserinfo } from './request-target.js';

describe('hasUserinfo', () => {
  it.each([
    ['http://user:pass@host/path', true],
    ['https://user@host:8443/', true],
    ['http://:@host/', true],
    ['http://host/path', false],
    ['http://host/a@b', false],
    ['http://host?to=a@b', false],
    ['http://host/#a@b', false],
    ['http://host:8001/api/webui/x?mail=me@example.org', false],
  ])('%s: %s', (url, expected) => {
    expect(hasUserinfo(url)).toBe(expected);
  });
});
