import type { SecurityEvent } from '@webui/core';
import { describe, expect, it, vi } from 'vitest';
import { createSessionCheckShortcut, SESSION_CHECK_TARGET } from '../session/check/session-check-shortcut.js';
import { createTestApp, RecordingAudit, RecordingLogger } from '../testing/test-app.js';

/** A sink that writes in groups, like the audit file with groupCommit: nothing is written until writeNow(). */
class GroupedAudit extends RecordingAudit {
  private pending: Promise<void> | null = null;
  private release: () => void = () => undefined;

  override record(event: SecurityEvent): void {
    super.record(event);
    this.pending ??= new Promise((resolve) => {
      this.release = () => {
        this.pending = null;
        resolve();
      };
    });
  }

  written(): Promise<void> | null {
    return this.pending;
  }

  writeNow(): void {
    this.release();
  }
}

/** Whether `answer` settles within a few turns of the event loop; asked only once its line is recorded and held, so load cannot flip it. */
async function settlesSoon(answer: unknown): Promise<boolean> {
  const turns = async (count: number): Promise<false> => {
    for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
    return false;
  };
  return Promise.race([Promise.resolve(answer).then(() => true), turns(10)]);
}

describe('no answer runs ahead of its audit line', () => {
  it('the app answers a failed login only once the sink has written its line; a request that records nothing is not held', async () => {
    const audit = new GroupedAudit();
    const t = await createTestApp({ audit });
    // Held, it would never settle (nothing writes): the test would time out.
    expect((await t.request('/health')).status).toBe(200);

    const answer = t.verify('a-wrong-token');
    await vi.waitFor(() => expect(audit.named('login_failed')).toHaveLength(1));
    expect(await settlesSoon(answer)).toBe(false);
    audit.writeNow();
    expect((await answer).status).toBe(200);
  });

  it("Node's /auth/check fast path waits for the line of a wrong cookie too", async () => {
    const audit = new GroupedAudit();
    const t = await createTestApp({ audit });
    const shortcut = createSessionCheckShortcut({ services: t.harness, policy: t.policy, logger: new RecordingLogger(false), audit });
    const headers: Record<string, string> = { host: '127.0.0.1:8001', cookie: 'bot_session=a-wrong-cookie' };
    const answer = shortcut?.({
      method: 'GET',
      target: SESSION_CHECK_TARGET,
      peerAddress: '127.0.0.5',
      isTls: false,
      header: (name) => headers[name],
    });
    if (!answer) throw new Error('the shortcut took no answer');
    await vi.waitFor(() => expect(audit.named('login_failed')).toHaveLength(1));
    expect(await settlesSoon(answer)).toBe(false);
    audit.writeNow();
    expect(await answer).toMatchObject({ status: 200, body: JSON.stringify({ authenticated: false }) });
  });
});
