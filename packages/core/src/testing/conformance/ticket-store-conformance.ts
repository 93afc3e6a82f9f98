import type { TicketGrant, TicketStore } from '../../ports/ticket-store.js';
import { expectEqual, withHarness, type PortHarness, type StoreConformanceCase } from './conformance-case.js';

/** What every TicketStore must do: spend a ticket at most once, whoever asks, and drop a session's tickets together. */
export function ticketStoreConformanceCases(makeHarness: () => Promise<PortHarness<TicketStore>>): StoreConformanceCase[] {
  const run = (body: (harness: PortHarness<TicketStore>) => Promise<void>) => withHarness(makeHarness, body);
  return [
    {
      name: 'consumeTicket returns the grant once, then null',
      run: run(async ({ store, clock }) => {
        const grant: TicketGrant = { sessionToken: 'session-a', expiresAt: clock.now() + 60_000 };
        await store.putTicket('ticket-1', grant);
        expectEqual(await store.consumeTicket('never-issued'), null, 'consuming an unknown ticket');
        expectEqual(await store.consumeTicket('ticket-1'), grant, 'first consume');
        expectEqual(await store.consumeTicket('ticket-1'), null, 'second consume');
      }),
    },
    {
      name: '20 concurrent consumeTicket calls of one ticket yield exactly one grant',
      run: run(async ({ store, clock }) => {
        const grant: TicketGrant = { sessionToken: 'session-a', expiresAt: clock.now() + 60_000 };
        await store.putTicket('ticket-race', grant);
        const results = await Promise.all(Array.from({ length: 20 }, () => store.consumeTicket('ticket-race')));
        const grants = results.filter((result) => result !== null);
        expectEqual(grants.length, 1, 'number of concurrent consumes that got the grant');
        expectEqual(grants[0], grant, 'the grant won by the race');
      }),
    },
    {
      name: "revokeTickets drops only that session's tickets",
      run: run(async ({ store, clock }) => {
        const expiresAt = clock.now() + 60_000;
        await store.putTicket('a-1', { sessionToken: 'session-a', expiresAt });
        await store.putTicket('a-2', { sessionToken: 'session-a', expiresAt });
        await store.putTicket('b-1', { sessionToken: 'session-b', expiresAt });
        await store.revokeTickets('session-a');
        await store.revokeTickets('session-without-tickets');
        expectEqual(await store.consumeTicket('a-1'), null, 'revoked ticket a-1');
        expectEqual(await store.consumeTicket('a-2'), null, 'revoked ticket a-2');
        expectEqual(await store.consumeTicket('b-1'), { sessionToken: 'session-b', expiresAt }, "another session's ticket");
      }),
    },
    {
      name: 'K clients: one ticket consumed by every client at once has exactly one winner',
      run: run(async ({ clock, clients }) => {
        const stores = await clients(5);
        const grant: TicketGrant = { sessionToken: 'session-a', expiresAt: clock.now() + 60_000 };
        await (stores[0] as TicketStore).putTicket('ticket-shared', grant);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (stores[i % stores.length] as TicketStore).consumeTicket('ticket-shared')),
        );
        const grants = results.filter((result) => result !== null);
        expectEqual(grants.length, 1, 'consumes that got the grant');
        expectEqual(grants[0], grant, 'the grant won by the race');
      }),
    },
    {
      name: 'K clients: revokeTickets covers tickets put by every client',
      run: run(async ({ clock, clients }) => {
        const [first, second] = (await clients(2)) as [TicketStore, TicketStore];
        const expiresAt = clock.now() + 60_000;
        await first.putTicket('from-first', { sessionToken: 'session-a', expiresAt });
        await second.putTicket('from-second', { sessionToken: 'session-a', expiresAt });
        await first.revokeTickets('session-a');
        expectEqual(await second.consumeTicket('from-first'), null, 'ticket of the first client after the revocation');
        expectEqual(await first.consumeTicket('from-second'), null, 'ticket of the second client after the revocation');
      }),
    },
  ];
}
