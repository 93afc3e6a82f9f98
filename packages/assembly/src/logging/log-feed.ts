import type { LogEntry, LogLevel, LogSource } from '@webui/http-hono';

export type LogListener = (entry: LogEntry) => void;

/** pino's numeric level as one of the five the dashboard filters on: trace and debug are DEBUG, fatal is CRITICAL. */
export function dashboardLevel(pinoLevel: unknown): LogLevel {
  if (typeof pinoLevel !== 'number') return 'INFO';
  if (pinoLevel < 30) return 'DEBUG';
  if (pinoLevel < 40) return 'INFO';
  if (pinoLevel < 50) return 'WARNING';
  return pinoLevel < 60 ? 'ERROR' : 'CRITICAL';
}

/** Width of the counter in an entry id: fixed, so that ids sort as strings in the order they were made. */
const COUNTER_DIGITS = 12;

/** A line not yet turned into an entry: nobody has asked for it so far. */
interface RawLine {
  id: number;
  line: string;
}

/** A pino destination: receives each serialised line. */
export interface LineSink {
  write(chunk: string | Buffer): boolean;
}

/**
 * Keeps the most recent log entries for replay and hands every new one to live subscribers.
 * Lines are parsed only when someone reads them (a replay or a live subscriber), not on every log call.
 */
export class LogFeed implements LogSource {
  private readonly entries: Array<LogEntry | RawLine> = [];
  private readonly listeners = new Set<LogListener>();
  private nextId = 1;
  /** The run's start time leads every id: ids from another run of the server never collide with these. */
  private readonly idPrefix: string;

  constructor(
    private readonly capacity = 500,
    startedAt: number = Date.now(),
  ) {
    this.idPrefix = `${startedAt}_`;
  }

  readonly stream: LineSink = {
    write: (chunk) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString();
      // pino writes one line per call, newline-terminated.
      const newline = text.indexOf('\n');
      if (newline === text.length - 1 || newline < 0) this.push(newline < 0 ? text : text.slice(0, newline));
      else for (const line of text.split('\n')) this.push(line);
      return true;
    },
  };

  recent(count: number): LogEntry[] {
    if (count <= 0) return [];
    const start = Math.max(0, this.entries.length - count);
    const recent: LogEntry[] = [];
    for (let i = start; i < this.entries.length; i++) {
      const entry = this.entryAt(i);
      if (entry) recent.push(entry);
    }
    return recent;
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private push(line: string): void {
    if (line.trim() === '') return;
    const raw: RawLine = { id: this.nextId++, line };
    this.entries.push(raw);
    if (this.entries.length > this.capacity) this.entries.shift();
    if (this.listeners.size === 0) return;
    const entry = this.entryAt(this.entries.length - 1);
    if (entry) for (const listener of this.listeners) listener(entry);
  }

  /** The entry at `index`, parsed (and kept parsed) on first use; null for a line that is not JSON. */
  private entryAt(index: number): LogEntry | null {
    const item = this.entries[index] as LogEntry | RawLine;
    if (!('line' in item)) return item;
    if (item.line === '') return null;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(item.line) as Record<string, unknown>;
    } catch {
      // Not JSON (pino never writes such a line): kept as an empty line, never shown.
      item.line = '';
      return null;
    }
    const entry: LogEntry = {
      id: `${this.idPrefix}${String(item.id).padStart(COUNTER_DIGITS, '0')}`,
      timestamp: new Date(typeof record.time === 'number' ? record.time : Date.now()).toISOString(),
      level: dashboardLevel(record.level),
      module: typeof record.module === 'string' ? record.module : 'webui',
      message: typeof record.msg === 'string' ? record.msg : '',
    };
    this.entries[index] = entry;
    return entry;
  }
}
