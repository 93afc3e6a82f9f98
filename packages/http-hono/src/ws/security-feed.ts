import { auditLine, type AuditLine, type SecurityEvent, type SecurityEventSink } from '@webui/core';

export type SecurityListener = (line: AuditLine) => void;

/** Kept for dashboards that subscribe late: enough to see the last burst of failures or changes. */
const DEFAULT_CAPACITY = 200;

/**
 * Security events for the WebSocket channel's `security` domain: the recent ones for a snapshot, and
 * every new one to live subscribers, the same lines the audit file gets.
 */
export class SecurityFeed implements SecurityEventSink {
  private readonly lines: AuditLine[] = [];
  private readonly listeners = new Set<SecurityListener>();

  constructor(
    private readonly now: () => number,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  record(event: SecurityEvent): void {
    const line = auditLine(event, this.now());
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.shift();
    for (const listener of this.listeners) listener(line);
  }

  recent(): AuditLine[] {
    return [...this.lines];
  }

  subscribe(listener: SecurityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
