import { StoreUnavailableError } from '@webui/core';
import type { AttemptStore, FailureBudgetStore, RecordStore, RetiredTokenStore, TicketStore } from '@webui/core/adapter';
import { describe, expect, it } from 'vitest';
import { createTestApp, expectErrorBody, json, sessionSetCookies, type TestApp } from '../testing/test-app.js';

/** Plays a shared store that was lost: every call fails as an unreachable Redis does, except reading the last known record. */
function loseStore(t: TestApp): { restore(): void } {
  const restores: Array<() => void> = [];
  const lose = <Port extends object>(port: Port, methods: ReadonlyArray<keyof Port>): void => {
    for (const method of methods) {
      const original = port[method];
      port[method] = (() =>
        Promise.reject(new StoreUnavailableError('cannot reach Redis at redis://127.0.0.1:6379/0'))) as Port[keyof Port];
      restores.push(() => (port[method] = original));
    }
  };
  const { record, attempts, budget, retiredTokens, tickets } = t.harness.store;
  lose<RecordStore>(record, ['swapRecord']);
  lose<AttemptStore>(attempts, ['countFailure', 'recordLogin', 'readClient', 'readAttempts', 'deleteAttempts', 'listAttempts']);
  lose<FailureBudgetStore>(budget, ['addGlobalFailures', 'readGlobalFailures', 'clearGlobalFailures']);
  lose<RetiredTokenStore>(retiredTokens, ['retireToken', 'isRetiredToken']);
  lose<TicketStore>(tickets, ['putTicket', 'consumeTicket', 'revokeTickets']);
  return { restore: () => restores.forEach((restore) => restore()) };
}

async function expectStoreUnavailable(res: Response): Promise<void> {
  const body = await expectErrorBody(res, 503, 'store_unavailable');
  expect(res.headers.get('retry-after')).toBe('5');
  expect(body.retry_after).toBe(5);
  expect(sessionSetCookies(res)).toEqual([]);
}

describe('a lost store fails closed (docs/decisions/0016-shared-store-fails-closed.md)', () => {
  it(
    'logins, cookies and bearers right or wrong, state changes and tickets answer 503 store_unavailable; nothing is accepted, ' +
      'changed or logged as an error',
    async () => {
      let available = true;
      const t = await createTestApp({ storeAvailable: () => available });
      const cookie = await t.login();
      const key = await t.createKey('monitor', 'read');
      const lost = loseStore(t);
      available = false;

      // The right token is not accepted while its failure could not have been counted.
      await expectStoreUnavailable(await t.verify(t.token));
      await expectStoreUnavailable(await t.verify('wrong-token'));
      await expectStoreUnavailable(await t.request('/auth/check', { cookie: 'wrong-cookie' }));
      await expectStoreUnavailable(await t.request('/setup/complete', { method: 'POST', cookie }));
      await expectStoreUnavailable(
        await t.request('/auth/update', { method: 'POST', cookie, json: { new_token: 'Another-Strong-Token-9!' } }),
      );
      await expectStoreUnavailable(await t.request('/ws-token', { cookie }));

      // No credential is compared while its failure could not be counted: right and wrong get the same answer, cookie or bearer.
      for (const credential of [{ cookie }, { cookie: 'wrong-cookie' }, { bearer: key }, { bearer: `${key}x` }, { bearer: t.token }]) {
        await expectStoreUnavailable(await t.request('/auth/check', credential));
        await expectStoreUnavailable(await t.request('/setup/status', credential));
      }

      const health = await t.request('/health');
      expect(health.status).toBe(503);
      expect(await json(health)).toMatchObject({ status: 'degraded', service: 'webui-test', code: 'store_unavailable' });
      expect(t.logger.at('error')).toEqual([]);

      lost.restore();
      available = true;
      expect((await t.request('/health')).status).toBe(200);
      expect((await t.verify(t.token)).status).toBe(200);
      expect((await t.harness.store.record.readRecord())?.firstSetupCompleted).toBe(false);
    },
  );
});
