/** One log line as the log stream sends it (DESIGN D13). */
export interface LogEntry {
  id: number;
  timestamp: string;
  level: string;
  module: string;
  message: string;
}

/** Where the log stream reads from: recent entries for the snapshot, then live ones. */
export interface LogSource {
  recent(count: number): LogEntry[];
  subscribe(listener: (entry: LogEntry) => void): () => void;
}
