/** The levels the existing dashboard filters on (DEBUG 10 ... CRITICAL 50); any other is hidden there. */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

/** One log line as the log stream sends it, `{id, timestamp, level, module, message}` (docs/decisions/0013-websocket-channel.md, the dashboard's LogEntry). */
export interface LogEntry {
  /** Unique and increasing within the server's run, the same in the snapshot and in the live event. */
  id: string;
  /** ISO 8601. */
  timestamp: string;
  level: LogLevel;
  module: string;
  message: string;
}

/** Where the log stream reads from: recent entries for the snapshot, then live ones. */
export interface LogSource {
  recent(count: number): LogEntry[];
  subscribe(listener: (entry: LogEntry) => void): () => void;
}
