import { describe, expect, it } from 'vitest';
import { BanPolicy } from '../domain/bans/ban-policy.js';
import { MemoryStore } from '../memory/memory-store.js';
import { createCoreHarness } from './core-harness.js';

describe('createCoreHarness', () => {
  it('wires every service over one store, clock and random source', async () => {
    const harness = createCoreHarness();
    const { temporaryToken } = await harness.tokens.bootstrap();
    expect(await harness.store.record.readRecord()).toMatchObject({ accessToken: temporaryToken });
    expect(await harness.setup.isFirstSetup()).toBe(true);
    const ticket = await harness.tickets.issue(temporaryToken as string);
    expect(ticket.ok).toBe(true);
    expect(harness.store.size.tickets).toBe(1);
    expect(harness.bans).toBeInstanceOf(BanPolicy);
    expect(harness.store).toBeInstanceOf(MemoryStore);
  });

  it('passes record, seed, ban policy and limits through', async () => {
    const a = createCoreHarness({ seed: 11 });
    const b = createCoreHarness({ seed: 11 });
    expect((await a.tokens.bootstrap()).temporaryToken).toBe((await b.tokens.bootstrap()).temporaryToken);

    const withRecord = createCoreHarness({
      record: { accessToken: 'Given-Token-1!', tokenSource: 'configured', firstSetupCompleted: true },
    });
    expect(await withRecord.tokens.verify('Given-Token-1!')).toBe(true);

    const strict = createCoreHarness({ banPolicy: { threshold: 1 } });
    expect(await strict.bans.recordFailure('192.0.2.1')).toMatchObject({ banned: true, justBanned: true });

    const small = createCoreHarness({ limits: { maxAttemptKeys: 2 } });
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) await small.bans.recordFailure(ip);
    expect(small.store.size.attempts).toBe(2);
  });
});
