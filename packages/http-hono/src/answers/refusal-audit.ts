import type { SecurityEvent, SecurityEventSink } from '@webui/core';

/** The sink of an app built without an audit trail (tests, embedders that do not want one). */
export const NO_AUDIT: SecurityEventSink = { record: () => undefined };

export type RefusalReason = Extract<SecurityEvent, { event: 'request_refused' }>['reason'];

// A page on a foreign origin may retry in a loop: one line a minute per address says as much as a thousand.
const LINE_INTERVAL_MS = 60_000;
const MAX_ADDRESSES = 10_000;

/**
 * Audits requests refused for their Origin or Host: at most one line per address per minute, its
 * `count` the refusals since the previous line for that address, this one included.
 */
export class RefusalAudit {
  private readonly byAddress = new Map<string, { lineAt: number; unreported: number }>();

  constructor(
    private readonly audit: SecurityEventSink,
    private readonly now: () => number,
  ) {}

  refused(address: string, reason: RefusalReason): void {
    const now = this.now();
    const seen = this.byAddress.get(address);
    if (seen && now - seen.lineAt < LINE_INTERVAL_MS) {
      seen.unreported++;
      return;
    }
    this.byAddress.delete(address);
    this.byAddress.set(address, { lineAt: now, unreported: 0 });
    // Bounded like every per-address table (docs/decisions/0014-bounded-memory.md): the oldest address is forgotten first.
    if (this.byAddress.size > MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value as string);
    this.audit.record({ event: 'request_refused', address, via: 'api', reason, count: (seen?.unreported ?? 0) + 1 });
  }
}
