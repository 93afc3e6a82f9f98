import { describe, expect, it } from 'vitest';
import { requestsWait } from './waiting-requests.js';

describe('requestsWait: which servers let the young generation grow', () => {
  it('not on the JSON file alone, whose requests end in the turn they start', () => {
    expect(requestsWait({ store: 'file', upstream: undefined })).toBe(false);
  });

  it('on a shared store, or with the bot backend behind the gateway', () => {
    expect(requestsWait({ store: 'redis://127.0.0.1:6379/0', upstream: undefined })).toBe(true);
    expect(requestsWait({ store: 'redis-cluster://127.0.0.1:7000', upstream: undefined })).toBe(true);
    expect(requestsWait({ store: 'file', upstream: { url: 'http://127.0.0.1:8002' } })).toBe(true);
  });
});
