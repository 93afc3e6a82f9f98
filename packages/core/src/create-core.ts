import { ApiKeys, revokedKeySessions } from './domain/api-keys.js';
import { BanPolicy, type BanPolicyOptions } from './domain/bans/ban-policy.js';
import { Credentials } from './domain/credentials.js';
import type { Clock } from './ports/clock.js';
import type { RandomSource } from './ports/random-source.js';
import type { Store } from './ports/store.js';
import { RecordEditor } from './domain/tokens/record-editor.js';
import { SetupState } from './domain/setup-state.js';
import { TokenService } from './domain/tokens/token-service.js';
import { WsTicketIssuer } from './domain/ws-ticket-issuer.js';

/** What the core needs from its host: where state lives, what time it is, where randomness comes from. */
export interface CorePorts {
  /** One small port per kind of state; an adapter's, or the JSON file's record with core's memory for the rest. */
  store: Store;
  clock: Clock;
  random: RandomSource;
  banPolicy?: Partial<BanPolicyOptions>;
}

/** The core's services, wired to share one store and one serialised record editor. */
export interface Core {
  tokens: TokenService;
  keys: ApiKeys;
  /** The access token or an API key, whichever a presented secret is. */
  credentials: Credentials;
  bans: BanPolicy;
  setup: SetupState;
  tickets: WsTicketIssuer;
}

/**
 * Builds the core over its ports: the one place that knows how the services share state. Every
 * host (servers, CLI, tests) calls it; nothing else constructs the services.
 */
export function createCore({ store, clock, random, banPolicy }: CorePorts): Core {
  const editor = new RecordEditor(store);
  const tokens = new TokenService(store, editor, random);
  const keys = new ApiKeys(store, editor, clock, random);
  const credentials = new Credentials(tokens, keys);
  const bans = new BanPolicy(store, clock, banPolicy, keys);
  // Whoever replaced the token (the API, another process, a hand edit): its tickets die, and its
  // cookies in open tabs become stale sessions rather than guesses.
  // A revoked key's tickets die the same way, whoever revoked it.
  store.record.onRecordChanged((record, previous) => {
    if (!previous) return;
    // A store that fails here must not take the process down: tickets still expire within 60 s, and a stale cookie then merely counts as
    // a guess.
    for (const session of revokedKeySessions(previous.apiKeys, record?.apiKeys))
      store.tickets.revokeTickets(session).catch(() => undefined);
    if (record?.accessToken === previous.accessToken) return;
    store.tickets.revokeTickets(previous.accessToken).catch(() => undefined);
    bans.retireToken(previous.accessToken).catch(() => undefined);
  });
  return {
    tokens,
    keys,
    credentials,
    bans,
    setup: new SetupState(editor),
    tickets: new WsTicketIssuer(store, credentials, clock, random),
  };
}
