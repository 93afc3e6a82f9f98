import { BanPolicy, type BanPolicyOptions } from '../ban-policy.js';
import { MemoryStore, type MemoryStoreLimits } from '../memory-store.js';
import type { TokenRecord } from '../ports/store.js';
import { RecordEditor } from '../record-editor.js';
import { SetupState } from '../setup-state.js';
import { TokenService } from '../token-service.js';
import { WsTicketIssuer } from '../ws-ticket-issuer.js';
import { FakeClock } from './fake-clock.js';
import { SeededRandom } from './seeded-random.js';

/** Every core service over one in-memory store, a fake clock and seeded randomness. */
export function createCoreHarness(options: { record?: TokenRecord; seed?: number; banPolicy?: Partial<BanPolicyOptions>; limits?: Partial<MemoryStoreLimits> } = {}) {
  const clock = new FakeClock();
  const random = new SeededRandom(options.seed ?? 1);
  const store = new MemoryStore(clock, { record: options.record ?? null, limits: options.limits ?? {} });
  const editor = new RecordEditor(store);
  const tokens = new TokenService(store, editor, random);
  return {
    clock,
    random,
    store,
    tokens,
    setup: new SetupState(editor),
    bans: new BanPolicy(store, clock, options.banPolicy),
    tickets: new WsTicketIssuer(store, tokens, clock, random),
  };
}
