import { StoreUnavailableError, type Store } from '@webui/core';

/** What the metrics learn from the store: each timed operation's duration and failure, and the tickets it holds. */
export interface StoreObserver {
  /** Called once per operation name when the store is wrapped: the function it returns gets each call's seconds. */
  timer(operation: string): (seconds: number) => void;
  /** A store that could not be reached (StoreUnavailableError), by operation. */
  failed(operation: string): void;
  ticketIssued(): void;
  ticketRedeemed(): void;
}

/**
 * The store with its operations timed and its tickets counted. `timeEvery`: a store across the network (Redis) has every
 * operation timed but the record's read, which every store answers from memory; the file store only its writes
 * (swapRecord), since the rest is memory and a timer per request would cost more than the operation it times.
 */
export function observedStore(store: Store, observer: StoreObserver, timeEvery: boolean): Store {
  const timed = <Args extends unknown[], Result>(
    operation: string,
    call: (...args: Args) => Promise<Result>,
  ): ((...args: Args) => Promise<Result>) => {
    const observe = observer.timer(operation);
    // One `then` per call, not an async layer: on Redis every request's admission read passes here (an async wrapper
    // cost about 2 µs a request, a tenth of /auth/check's CPU).
    return (...args) => {
      const started = performance.now();
      let answer: Promise<Result>;
      try {
        answer = call(...args);
      } catch (error) {
        // A store that throws rather than rejects is timed and counted the same.
        answer = Promise.reject(error);
      }
      return answer.then(
        (value) => {
          observe((performance.now() - started) / 1000);
          return value;
        },
        (error: unknown) => {
          observe((performance.now() - started) / 1000);
          if (error instanceof StoreUnavailableError) observer.failed(operation);
          throw error;
        },
      );
    };
  };
  // Untimed, an operation is the port's own method, called as before.
  const maybe: typeof timed = timeEvery ? timed : (_operation, call) => call;
  const { record, attempts, budget, retiredTokens, tickets } = store;
  const consumeTicket = maybe('consumeTicket', (ticket: string) => tickets.consumeTicket(ticket));
  return {
    record: {
      // Never timed: every store answers it from memory (Redis from its last known copy), at once (Awaitable).
      readRecord: () => record.readRecord(),
      swapRecord: timed('swapRecord', (expected, next) => record.swapRecord(expected, next)),
      onRecordChanged: (listener) => record.onRecordChanged(listener),
    },
    attempts: timeEvery
      ? {
          countFailure: timed('countFailure', (key, failure) => attempts.countFailure(key, failure)),
          recordLogin: timed('recordLogin', (key, now, rememberUntil) => attempts.recordLogin(key, now, rememberUntil)),
          readClient: timed('readClient', (key) => Promise.resolve(attempts.readClient(key))),
          readAttempts: timed('readAttempts', (key) => attempts.readAttempts(key)),
          deleteAttempts: timed('deleteAttempts', (key) => attempts.deleteAttempts(key)),
          listAttempts: timed('listAttempts', () => attempts.listAttempts()),
        }
      : attempts,
    budget: timeEvery
      ? {
          addGlobalFailures: timed('addGlobalFailures', (bucket, count, expiresAt) => budget.addGlobalFailures(bucket, count, expiresAt)),
          readGlobalFailures: timed('readGlobalFailures', (fromBucket) => budget.readGlobalFailures(fromBucket)),
          clearGlobalFailures: timed('clearGlobalFailures', () => budget.clearGlobalFailures()),
        }
      : budget,
    retiredTokens: timeEvery
      ? {
          retireToken: timed('retireToken', (fingerprint, until) => retiredTokens.retireToken(fingerprint, until)),
          isRetiredToken: timed('isRetiredToken', (fingerprint) => retiredTokens.isRetiredToken(fingerprint)),
        }
      : retiredTokens,
    tickets: {
      putTicket: maybe('putTicket', async (ticket, grant) => {
        await tickets.putTicket(ticket, grant);
        observer.ticketIssued();
      }),
      consumeTicket: async (ticket) => {
        const grant = await consumeTicket(ticket);
        if (grant !== null) observer.ticketRedeemed();
        return grant;
      },
      revokeTickets: maybe('revokeTickets', (sessionToken) => tickets.revokeTickets(sessionToken)),
    },
  };
}
