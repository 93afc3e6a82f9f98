import { describe, expect, it } from 'vitest';
import { parseControlRequest } from './control-protocol.js';

describe('parseControlRequest', () => {
  it('reads the two operations', () => {
    expect(parseControlRequest('{"op":"bans.list"}')).toEqual({ ok: true, request: { op: 'bans.list' } });
    expect(parseControlRequest('{"op":"bans.lift","target":"10.0.0.0/8"}')).toEqual({ ok: true, request: { op: 'bans.lift', target: '10.0.0.0/8' } });
  });

  it('ignores unknown fields, so an older server understands a newer CLI', () => {
    expect(parseControlRequest('{"op":"bans.list","verbose":true}')).toEqual({ ok: true, request: { op: 'bans.list' } });
  });

  it.each([
    ['not JSON', '{op:bans.list}', /one JSON object per line/],
    ['an array', '[]', /one JSON object per line/],
    ['a string', '"bans.list"', /one JSON object per line/],
    ['no op', '{}', /op/],
    ['an unknown op', '{"op":"token.show"}', /op: .*bans\.list.*bans\.lift/],
    ['a lift without a target', '{"op":"bans.lift"}', /target/],
    ['a lift with a numeric target', '{"op":"bans.lift","target":7}', /target: .*string/],
  ])('refuses %s in one line naming the field', (_name, line, detail) => {
    const parsed = parseControlRequest(line);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.detail).toMatch(detail);
    expect(parsed.detail).not.toContain('\n');
  });
});
