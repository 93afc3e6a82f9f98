import { auditLine, type AuditLine, type SecurityEvent, type SecurityEventSink } from '@webui/core';

export type SecurityListener = (line: AuditLine) => void;

/** Kept for dashboards that subscribe late: enough to see the last burst of failures or changes. */
const DEFAULT_CAPACITY = 200;

/**
 * Security events for the WebSocket channel's `security` domain: the recent ones for a snapshot, and
 * every new one to live subscribers, the same lines the audit file gets.
 */
export class SecurityFeed implements SecurityEventSink {
  // Lines are built when read: most events are never asked for, and a login should not pay for one.
  private readonly entries: { event: SecurityEvent; at: number }[] = [];
  private readonly listeners = new Set<SecurityListener>();

  constructor(
    private readonly now: () => number,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  record(event: SecurityEvent): void {
    const at = this.now();
    this.entries.push({ event, at });
    if (this.entries.length > this.capacity) this.entries.shift();
    if (this.listeners.size === 0) return;
    const line = auditLine(event, at);
    for (const listener of this.listeners) listener(line);
  }

  recent(): AuditLine[] {
    return this.entries.map(({ event, at }) => auditLine(event, at));
  }

  subscribe(listener: SecurityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
