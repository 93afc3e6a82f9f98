import type { RequestId } from '@webui/http-hono';

/** Client messages awaiting the upstream's answer; beyond it the oldest are forgotten (their answer still passes). */
const MAX_IN_FLIGHT = 256;
/** Ids of the hub's own messages: their answers never reach the client. */
const OWN_ID_PREFIX = 'webui-relay-';

/** What the relay awaits answers to and what it sends again after a reconnect: the client's messages and the hub's own. */
export class RelayLedger {
  /** Sent again after a reconnect: "domain/topic" -> the last subscribe that the upstream took (or the hub's own). */
  readonly remembered = new Map<string, { id: RequestId; text: string }>();
  /** Client messages sent and not yet answered; a subscribe is remembered once the upstream says ok. */
  readonly inFlight = new Map<RequestId, { key?: string; text: string }>();
  /** Ids of re-sent subscriptions: the client had their answer long ago. */
  readonly swallowed = new Set<RequestId>();
  private readonly ownAnswers = new Map<string, (ok: boolean) => void>();
  private nextOwnId = 1;

  /** A fresh id for one of the hub's own messages. */
  ownId(): string {
    return `${OWN_ID_PREFIX}${this.nextOwnId++}`;
  }

  /** Remembers the hub's own subscription `key`, answered once through `answered`. */
  rememberOwn(key: string, id: string, text: string, answered: (ok: boolean) => void): void {
    this.remembered.set(key, { id, text });
    this.ownAnswers.set(id, answered);
  }

  /** Forgets the hub's own subscription `key`, whose answer is no longer awaited. */
  forgetOwn(key: string): void {
    const own = this.remembered.get(key);
    this.remembered.delete(key);
    if (own) this.ownAnswers.delete(String(own.id));
  }

  /** A client's unsubscribe: its subscription is neither restored nor remembered once answered. */
  forgetClient(key: string): void {
    this.remembered.delete(key);
    for (const [pendingId, pending] of this.inFlight) if (pending.key === key) this.inFlight.delete(pendingId);
  }

  track(id: RequestId, pending: { key?: string; text: string }): void {
    this.inFlight.delete(id);
    this.inFlight.set(id, pending);
    if (this.inFlight.size > MAX_IN_FLIGHT) {
      const oldest = this.inFlight.keys().next();
      if (!oldest.done) this.inFlight.delete(oldest.value);
    }
  }

  /** Settles a client message's answer; true when the client must not see it (a re-sent subscription's). */
  answered(id: RequestId, ok: boolean): boolean {
    if (this.swallowed.delete(id)) return true;
    const pending = this.inFlight.get(id);
    if (!pending) return false;
    this.inFlight.delete(id);
    if (pending.key !== undefined && ok) this.remembered.set(pending.key, { id, text: pending.text });
    return false;
  }

  answerOwn(id: string, ok: boolean): void {
    const answer = this.ownAnswers.get(id);
    this.ownAnswers.delete(id);
    answer?.(ok);
  }

  failOwnAnswers(): void {
    const answers = [...this.ownAnswers.values()];
    this.ownAnswers.clear();
    for (const answer of answers) answer(false);
  }

  clear(): void {
    this.remembered.clear();
    this.inFlight.clear();
    this.ownAnswers.clear();
  }
}

export function isOwnId(id: RequestId): boolean {
  return typeof id === 'string' && id.startsWith(OWN_ID_PREFIX);
}
