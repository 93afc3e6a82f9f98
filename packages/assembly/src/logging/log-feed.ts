import type { LogEntry, LogSource } from '@webui/http-hono';
import { botLogEntry, dashboardLevel, type BotLogLine } from './dashboard-log-entry.js';

export { dashboardLevel, type BotLogLine } from './dashboard-log-entry.js';

export type LogListener = (entry: LogEntry) => void;

/** Width of the counter in an entry id: fixed, so that ids sort as strings in the order they were made. */
const COUNTER_DIGITS = 12;

/** A line not yet turned into an entry: nobody has asked for it so far. */
interface RawLine {
  id: number;
  line: string;
  /** A bot's line (through destination()): its module when the line names none; undefined for this server's own. */
  botModule?: string;
}

/** A pino destination: receives each serialised line. */
export interface LineSink {
  write(chunk: string | Buffer): boolean;
}

/**
 * Keeps the most recent log entries for replay and hands every new one to live subscribers: this server's own lines and a
 * bot's (write, destination), in one order under one run of ids. Lines are parsed only when someone reads them (a replay or
 * a live subscriber), not on every log call.
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

  /** This server's own pino lines. */
  readonly stream: LineSink = { write: (chunk) => this.pushLines(chunk) };

  /**
   * One log line of the bot's, normalised to the dashboard's entry (module `bot` unless it names one); a non-object or a line
   * without a message is dropped. Never throws. Bound, like destination: a bot may pass it on alone.
   */
  readonly write = (line: BotLogLine): void => {
    const entry = botLogEntry(line, 'bot', this.idOf(this.nextId), Date.now());
    if (!entry) return;
    this.nextId++;
    this.append(entry);
  };

  /** A pino destination for the bot's own logger (`pino(options, feed.destination('bot'))`): every line normalised as write's. */
  readonly destination = (module = 'bot'): LineSink => ({ write: (chunk) => this.pushLines(chunk, module) });

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

  private pushLines(chunk: string | Buffer, botModule?: string): boolean {
    // A Buffer as UTF-8; whatever else a caller passes becomes a line that is not JSON, and is dropped.
    const text = typeof chunk === 'string' ? chunk : String(chunk);
    // pino writes one line per call, newline-terminated.
    const newline = text.indexOf('\n');
    if (newline === text.length - 1 || newline < 0) this.push(newline < 0 ? text : text.slice(0, newline), botModule);
    else for (const line of text.split('\n')) this.push(line, botModule);
    return true;
  }

  private push(line: string, botModule?: string): void {
    if (line.trim() === '') return;
    this.append(botModule === undefined ? { id: this.nextId++, line } : { id: this.nextId++, line, botModule });
  }

  private append(item: LogEntry | RawLine): void {
    this.entries.push(item);
    if (this.entries.length > this.capacity) this.entries.shift();
    if (this.listeners.size === 0) return;
    const entry = this.entryAt(this.entries.length - 1);
    if (entry) for (const listener of this.listeners) listener(entry);
  }

  private idOf(counter: number): string {
    return `${this.idPrefix}${String(counter).padStart(COUNTER_DIGITS, '0')}`;
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
    if (item.botModule !== undefined) {
      const entry = botLogEntry(record, item.botModule, this.idOf(item.id), Date.now());
      if (!entry) item.line = '';
      else this.entries[index] = entry;
      return entry;
    }
    const entry: LogEntry = {
      id: this.idOf(item.id),
      timestamp: new Date(typeof record.time === 'number' ? record.time : Date.now()).toISOString(),
      level: dashboardLevel(record.level),
      module: typeof record.module === 'string' ? record.module : 'webui',
      message: typeof record.msg === 'string' ? record.msg : '',
    };
    this.entries[index] = entry;
    return entry;
  }
}
