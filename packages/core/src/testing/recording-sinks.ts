import type { Logger } from '../ports/logger.js';
import type { SecurityEvent, SecurityEventSink } from '../domain/security-event.js';
import type { OperationEventSink } from '../use-cases/events/event-recorder.js';
import type { OperationEvent } from '../use-cases/events/operation-event.js';

export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: object;
  message: string;
}

/** A logger that keeps every line, so tests can assert what was (never) logged. */
export class RecordingLogger implements Logger {
  readonly lines: LoggedLine[] = [];
  debug(fields: object, message: string): void {
    this.lines.push({ level: 'debug', fields, message });
  }
  info(fields: object, message: string): void {
    this.lines.push({ level: 'info', fields, message });
  }
  warn(fields: object, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }
  error(fields: object, message: string): void {
    this.lines.push({ level: 'error', fields, message });
  }
}

/** An audit sink that keeps every security event. */
export class RecordingAuditSink implements SecurityEventSink {
  readonly events: SecurityEvent[] = [];
  record(event: SecurityEvent): void {
    this.events.push(event);
  }
}

/** A sink for the verbs' events that keeps them, in the order they were recorded. */
export class RecordingEventSink implements OperationEventSink {
  readonly events: OperationEvent[] = [];
  record(events: readonly OperationEvent[]): void {
    this.events.push(...events);
  }
}
