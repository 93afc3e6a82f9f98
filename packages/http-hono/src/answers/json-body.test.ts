import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../app.js';
import { bodyProblems } from './json-body.js';
import { createTestApp, expectErrorBody, json } from '../testing/test-app.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('request bodies (docs/decisions/0001-error-bodies.md, docs/decisions/0005-weak-tokens.md, docs/decisions/0014-bounded-memory.md)', () => {
  it('answers 415 for a body without Content-Type, or with text/plain', async () => {
    const t = await createTestApp();
    const body = JSON.stringify({ token: t.token });
    await expectErrorBody(await t.request('/auth/verify', { method: 'POST', body: bytes(body) }), 415, 'unsupported_media_type');
    await expectErrorBody(await t.request('/auth/verify', { method: 'POST' }), 415, 'unsupported_media_type');
    await expectErrorBody(
      await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    await expectErrorBody(
      await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': 'application/jsonx' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('accepts application/json with parameters, in any case', async () => {
    const t = await createTestApp();
    const body = JSON.stringify({ token: t.token });
    const res = await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': 'Application/JSON; charset=utf-8' } });
    expect(res.status).toBe(200);
    expect((await json(res)).valid).toBe(true);
  });

  it('answers 415 unsupported_charset for a charset other than utf-8, and changes nothing', async () => {
    const t = await createTestApp();
    const body = JSON.stringify({ token: t.token });
    for (const type of [
      'application/json; charset=utf-16',
      'application/json;charset=UTF-16LE',
      'application/json; charset="latin1"',
      'application/json; charset=',
      'application/json; charset=utf-8; charset=utf-16',
    ]) {
      const res = await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': type } });
      await expectErrorBody(res, 415, 'unsupported_charset');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const cookie = await t.login();
    await expectErrorBody(
      await t.request('/auth/update', {
        method: 'POST',
        cookie,
        body: JSON.stringify({ new_token: 'A-Strong-Token-42!' }),
        headers: { 'content-type': 'application/json; charset=utf-16' },
      }),
      415,
      'unsupported_charset',
    );
    expect(await t.harness.tokens.verify(t.token)).toBe(true);
    for (const type of ['application/json; charset="UTF-8"', 'application/json; boundary=x; charset=utf-8']) {
      expect((await json(await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': type } }))).valid, type).toBe(
        true,
      );
    }
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const t = await createTestApp();
    for (const body of ['{', '', "{'token': 'x'}", '{"token": "x"} trailing', '['.repeat(5000)]) {
      await expectErrorBody(
        await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': 'application/json' } }),
        400,
        'invalid_json',
      );
    }
  });

  it('answers 422 invalid_body for a missing or non-string token', async () => {
    const t = await createTestApp();
    for (const value of [{}, { token: 123 }, { token: null }, { token: [t.token] }, { tok: t.token }, [], null, 'token', 42]) {
      const body = await expectErrorBody(await t.request('/auth/verify', { method: 'POST', json: value }), 422, 'invalid_body');
      expect(body.detail).toMatch(/token|object|Invalid/i);
    }
  });

  it('lists every problem of a body in `problems` (path and message each) and names them all in `detail` (issue 45)', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const res = await t.request('/keys', { method: 'POST', cookie, json: { name: 7, scope: 'root', expires: 90 } });
    const body = await expectErrorBody(res, 422, 'invalid_body');
    expect(body.problems).toEqual([
      { path: 'name', message: 'name must be a string' },
      { path: 'scope', message: expect.stringContaining('"read"') },
      { path: 'expires', message: 'expires must be a string such as "90d"' },
    ]);
    expect(body.detail).toMatch(/^The request body has 3 problems: "name": name must be a string; "scope": .+; "expires": .+\.$/);
    expect((await t.harness.keys.list()).map((key) => key.name)).toEqual([]);
    // A body that is not an object at all: one problem, of the body itself.
    const whole = await expectErrorBody(await t.request('/keys', { method: 'POST', cookie, json: 'reader' }), 422, 'invalid_body');
    expect(whole.problems).toEqual([{ path: '', message: expect.stringContaining('Object') }]);
    expect(whole.detail).toMatch(/^The request body has one problem: the body: .+\.$/);
  });

  it('lists at most 20 problems; the detail counts the rest', () => {
    const parsed = v.safeParse(
      v.array(v.string()),
      Array.from({ length: 30 }, (_, i) => i),
    );
    if (parsed.success) throw new Error('numbers are not strings');
    const { detail, problems } = bodyProblems(parsed.issues);
    expect(problems).toHaveLength(20);
    expect(problems[19]).toEqual({ path: '19', message: expect.stringContaining('string') });
    expect(detail).toMatch(/^The request body has 30 problems: "0": .+; "19": [^;]+; and 10 more\.$/);
  });

  it('does not count body errors as failed verifications', async () => {
    const t = await createTestApp();
    for (let i = 0; i < 6; i++) await t.request('/auth/verify', { method: 'POST', json: { token: i } });
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });

  it('answers 413 for a body over 16 KiB, with or without Content-Length', async () => {
    const t = await createTestApp();
    const big = JSON.stringify({ token: 'x'.repeat(MAX_BODY_BYTES) });
    await expectErrorBody(
      await t.request('/auth/verify', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    );
    await expectErrorBody(
      await t.request('/auth/verify', {
        method: 'POST',
        body: big,
        headers: { 'content-type': 'application/json', 'content-length': String(bytes(big).length) },
      }),
      413,
      'payload_too_large',
    );
  });

  it('answers 400 without an error in the log when a body without Content-Length breaks off (the client went away)', async () => {
    const t = await createTestApp();
    for (const path of ['/auth/verify', '/no/such/path']) {
      const broken = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes('{"token":"'));
          controller.error(new Error('aborted'));
        },
      });
      const init = {
        method: 'POST',
        body: broken,
        duplex: 'half',
        headers: { host: '127.0.0.1:8001', 'content-type': 'application/json' },
      } as RequestInit;
      const res = await t.app.request(`http://127.0.0.1:8001/api/webui${path}`, init, { peer: '127.0.0.5' });
      await expectErrorBody(res, 400, 'incomplete_body');
    }
    expect(t.logger.at('error')).toEqual([]);
    expect((await json(await t.verify(t.token))).valid).toBe(true);
  });

  it('accepts a body of exactly 16 KiB', async () => {
    const t = await createTestApp();
    const envelope = JSON.stringify({ token: '' });
    const body = JSON.stringify({ token: 'x'.repeat(MAX_BODY_BYTES - envelope.length) });
    expect(bytes(body).length).toBe(MAX_BODY_BYTES);
    const res = await t.request('/auth/verify', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect((await json(res)).valid).toBe(false);
  });

  it('never answers 500 nor logs an error for bad bodies, and keeps serving', async () => {
    const t = await createTestApp();
    const cookie = await t.login();
    const bad: Array<{ body?: BodyInit; headers?: Record<string, string> }> = [
      { body: bytes('{"token":"x"}') },
      { body: '\u0000\uffff', headers: { 'content-type': 'application/json' } },
      { body: new Uint8Array([0xff, 0xfe, 0x00]), headers: { 'content-type': 'application/json' } },
      { body: '{"__proto__": {"token": "x"}}', headers: { 'content-type': 'application/json' } },
      { body: 'x'.repeat(MAX_BODY_BYTES + 1), headers: { 'content-type': 'text/plain' } },
    ];
    for (const path of ['/auth/verify', '/auth/update']) {
      for (const init of bad) {
        const res = await t.request(path, { method: 'POST', cookie, ...init });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        const body = await json(res);
        expect(typeof body.detail).toBe('string');
        expect(typeof body.code).toBe('string');
      }
    }
    expect(t.logger.at('error')).toEqual([]);
    expect((await t.request('/health')).status).toBe(200);
  });
});
