import type { LogEntry, LogSource } from '@webui/http-hono';
import { Writable } from 'node:stream';

export type LogListener = (entry: LogEntry) => void;

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARNING', 50: 'ERROR', 60: 'CRITICAL' };

/** Keeps the most recent log entries for replay and hands every new one to live subscribers. */
export class LogFeed implements LogSource {
  private readonly entries: LogEntry[] = [];
  private readonly listeners = new Set<LogListener>();
  private nextId = 1;

  constructor(private readonly capacity = 500) {}

  /** A pino destination: receives each serialised line. */
  readonly stream = new Writable({
    write: (chunk: Buffer | string, _encoding, callback) => {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') this.push(line);
      callback();
    },
  });

  recent(count: number): LogEntry[] {
    return count <= 0 ? [] : this.entries.slice(-count);
  }

  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private push(line: string): void {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const entry: LogEntry = {
      id: this.nextId++,
      timestamp: new Date(typeof record.time === 'number' ? record.time : Date.now()).toISOString(),
      level: LEVEL_NAMES[record.level as number] ?? String(record.level),
      module: typeof record.module === 'string' ? record.module : 'webui',
      message: typeof record.msg === 'string' ? record.msg : '',
    };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.shift();
    for (const listener of this.listeners) listener(entry);
  }
}
