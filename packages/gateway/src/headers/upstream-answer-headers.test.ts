import { describe, expect, it } from 'vitest';
import { upstreamAnswerHeaders } from './upstream-answer-headers.js';

describe('upstreamAnswerHeaders', () => {
  it('passes every header and Set-Cookie except one for our session cookie', () => {
    const upstream = new Headers({ 'content-type': 'text/html', etag: '"1"', 'cache-control': 'public, max-age=60' });
    for (const line of ['a=1', 'bot_session=x; Path=/', ' bot_session =y', 'b=2; HttpOnly']) upstream.append('set-cookie', line);
    const dropped: string[] = [];
    const headers = upstreamAnswerHeaders(upstream, (line) => dropped.push(line));
    expect(headers.getSetCookie()).toEqual(['a=1', 'b=2; HttpOnly']);
    expect(dropped).toHaveLength(2);
    expect(headers.get('etag')).toBe('"1"');
    expect(headers.get('cache-control')).toBe('public, max-age=60');
  });

  it("drops the hop-by-hop headers and those the upstream's Connection names", () => {
    const upstream = new Headers({
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'x-hop': 'one connection only',
      'content-type': 'application/json',
    });
    expect([...upstreamAnswerHeaders(upstream, () => undefined).keys()]).toEqual(['cache-control', 'content-type']);
  });

  it('keeps no-store when the upstream says nothing of caching', () => {
    expect(upstreamAnswerHeaders(new Headers(), () => undefined).get('cache-control')).toBe('no-store');
  });
});
