import { describe, expect, it } from 'vitest';
import { parseControlRequest } from './control-protocol.js';

describe('parseControlRequest', () => {
  it('reads the two operations', () => {
    expect(parseControlRequest('{"op":"bans.list"}')).toEqual({ ok: true, request: { op: 'bans.list' } });
    expect(parseControlRequest('{"op":"bans.lift","target":"10.0.0.0/8"}')).toEqual({
      ok: true,
      request: { op: 'bans.lift', target: '10.0.0.0/8' },
    });
  });

  it('reads the admin operations: keys, token and first setup', () => {
    const lines = [
      '{"op":"keys.list"}',
      '{"op":"keys.create","name":"ci","scope":"read","expires":null}',
      '{"op":"keys.create","name":"ci","scope":"admin","expires":"90d"}',
      '{"op":"keys.revoke","name":"ci"}',
      '{"op":"keys.revoke","all":true}',
      '{"op":"token.set","token":"New-Token_2024!"}',
      '{"op":"token.regenerate"}',
      '{"op":"setup.status"}',
      '{"op":"setup.complete"}',
      '{"op":"setup.reset"}',
    ];
    for (const line of lines) expect(parseControlRequest(line)).toEqual({ ok: true, request: JSON.parse(line) });
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
    ['a key with an unknown scope', '{"op":"keys.create","name":"ci","scope":"root","expires":null}', /scope/],
    ['a key without its expiry', '{"op":"keys.create","name":"ci","scope":"read"}', /expires/],
    ['a revoke of nothing', '{"op":"keys.revoke"}', /name/],
    ['a revoke of all that is not true', '{"op":"keys.revoke","all":false}', /name/],
    ['a token that is not a string', '{"op":"token.set","token":7}', /token: .*string/],
  ])('refuses %s in one line naming the field', (_name, line, detail) => {
    const parsed = parseControlRequest(line);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.detail).toMatch(detail);
    expect(parsed.detail).not.toContain('\n');
  });
});
