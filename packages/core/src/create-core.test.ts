import { describe, expect, it } from 'vitest';
import { createCore } from './create-core.js';
import { MemoryStore } from './memory/memory-store.js';
import { FakeClock } from './testing/fake-clock.js';
import { SeededRandom } from './testing/seeded-random.js';
import { overwriteRecord } from './testing/overwrite-record.js';

const STRONG = 'Strong-Token-2026!';

async function bootedCore() {
  const clock = new FakeClock();
  const store = new MemoryStore(clock);
  const core = createCore({ store, clock, random: new SeededRandom(5) });
  const outcome = await core.tokens.bootstrap();
  return { clock, store, core, token: outcome.temporaryToken as string };
}

describe('createCore', () => {
  it('wires the services to one record: a token update and a setup change made together both land', async () => {
    const { store, core } = await bootedCore();
    await Promise.all([core.tokens.update(STRONG), core.setup.complete()]);
    expect(await store.record.readRecord()).toMatchObject({ accessToken: STRONG, firstSetupCompleted: true });
    expect(await core.tokens.verify(STRONG)).toBe(true);
    expect(await core.setup.isFirstSetup()).toBe(false);
  });

  it('a rotation through the API revokes the tickets of the replaced token before it returns', async () => {
    const { core, token } = await bootedCore();
    const issued = await core.tickets.issue(token);
    if (!issued.ok) throw new Error('no ticket');
    await core.tokens.regenerate();
    expect(await core.tickets.redeem(issued.value.ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('a change written to the store by someone else (another process, a hand edit) revokes them too', async () => {
    const { store, core, token } = await bootedCore();
    const issued = await core.tickets.issue(token);
    if (!issued.ok) throw new Error('no ticket');
    const record = await store.record.readRecord();
    await overwriteRecord(store.record, { ...record!, accessToken: STRONG, tokenSource: 'configured' });
    expect(await core.tickets.redeem(issued.value.ticket)).toEqual({ ok: false, error: 'unknown_ticket' });
  });

  it('a change that keeps the token keeps its tickets', async () => {
    const { core, token } = await bootedCore();
    const issued = await core.tickets.issue(token);
    if (!issued.ok) throw new Error('no ticket');
    await core.setup.complete();
    expect(await core.tickets.redeem(issued.value.ticket)).toMatchObject({ ok: true, value: { sessionToken: token } });
  });

  it('passes the ban options on', async () => {
    const clock = new FakeClock();
    const core = createCore({ store: new MemoryStore(clock), clock, random: new SeededRandom(1), banPolicy: { threshold: 2 } });
    await core.bans.recordFailure('203.0.113.9');
    expect((await core.bans.recordFailure('203.0.113.9')).banned).toBe(true);
  });
});
