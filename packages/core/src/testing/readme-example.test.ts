import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// The example of packages/core/README.md, kept verbatim between the markers.
// README-EXAMPLE-START
import { BanPolicy } from '@webui/core';
import { FakeClock, MemoryStore } from '@webui/core/testing';

it('keeps a ban for 10 minutes', async () => {
  const clock = new FakeClock();
  const bans = new BanPolicy(new MemoryStore(clock), clock);
  for (let i = 0; i < 5; i++) await bans.recordFailure('203.0.113.7');
  clock.advanceSeconds(599);
  expect(await bans.status('203.0.113.7')).toEqual({ banned: true, retryAfterSeconds: 1 });
});
// README-EXAMPLE-END

it('the README shows exactly the example above', () => {
  const self = readFileSync(new URL(import.meta.url), 'utf8');
  const example = self.slice(
    self.indexOf('// README-EXAMPLE-START\n') + '// README-EXAMPLE-START\n'.length,
    self.indexOf('// README-EXAMPLE-END'),
  );
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBe(example);
});
