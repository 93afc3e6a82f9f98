import { expect } from 'vitest';
import type { HttpResponse } from './clients/http-client.js';

/** docs/decisions/0001-error-bodies.md: every non-2xx answer is JSON {detail: sentence, code: snake_case}. */
export function expectErrorBody(response: HttpResponse, status: number, code?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.json).toMatchObject({ detail: expect.any(String), code: expect.stringMatching(/^[a-z][a-z0-9_]*$/) });
  expect(String(response.json?.['detail'])).not.toBe('');
  if (code !== undefined) expect(response.json?.['code']).toBe(code);
}
