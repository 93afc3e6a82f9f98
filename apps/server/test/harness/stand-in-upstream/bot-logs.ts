/** A log line as the original's channel sends it (dashboard contract §4): its own ids, zone-less timestamps, Python's level names. */
export interface BotLogEntry {
  id: string;
  /** Local time, no zone: `YYYY-MM-DD HH:MM:SS` on a live entry, `MM-DD HH:MM:SS` (no year) in a snapshot, as the original sends. */
  timestamp: string;
  /** As given; the original sends Python's names in upper case (DEBUG, INFO, WARNING, ERROR, CRITICAL). */
  level: string;
  module: string;
  message: string;
  /** Only on live entries, as the original's live handler adds it and its log-file reader does not. */
  moduleDisplayName?: string;
  moduleColor?: string;
  moduleBold?: boolean;
}

/** What a test gives `emitLog`: every field optional; `at` places the line in time (now by default). */
export interface BotLogInput {
  level?: string;
  module?: string;
  message?: string;
  moduleDisplayName?: string;
  moduleColor?: string;
  moduleBold?: boolean;
  at?: Date;
}

interface StoredLine {
  at: Date;
  level: string;
  module: string;
  message: string;
  moduleDisplayName: string;
  style: Pick<BotLogEntry, 'moduleColor' | 'moduleBold'>;
}

const two = (value: number) => String(value).padStart(2, '0');

/** A live entry's timestamp in the original: local time, no zone, second resolution. */
export function botTimestamp(at: Date): string {
  return `${at.getFullYear()}-${snapshotTimestamp(at)}`;
}

/** A snapshot entry's timestamp: its log file's default `date_style` (`m-d H:i:s`), so without the year. */
export function snapshotTimestamp(at: Date): string {
  return `${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/**
 * The bot's log: every line emitted goes to the history the snapshot reads. Ids follow the original's two schemes:
 * a live entry's is `<epoch ms>_<counter>`, a snapshot entry's is made afresh at every read from its timestamp's digits
 * and its place counted from the newest (so one line has a different id in a snapshot than it had live).
 */
export class BotLogs {
  private readonly lines: StoredLine[] = [];
  private liveCounter = 0;

  /** Adds a line and returns it as the live `entry` event carries it. */
  add(input: BotLogInput): BotLogEntry {
    const line: StoredLine = {
      at: input.at ?? new Date(),
      level: input.level ?? 'INFO',
      module: input.module ?? 'main',
      message: input.message ?? '',
      moduleDisplayName: input.moduleDisplayName ?? input.module ?? 'main',
      style: styleOf(input),
    };
    this.lines.push(line);
    this.liveCounter += 1;
    return {
      id: `${line.at.getTime()}_${this.liveCounter}`,
      timestamp: botTimestamp(line.at),
      level: line.level,
      module: line.module,
      moduleDisplayName: line.moduleDisplayName,
      message: line.message,
      ...line.style,
    };
  }

  /** The last `limit` lines, oldest first, as the `snapshot` event carries them. */
  recent(limit: number): BotLogEntry[] {
    const newestFirst = this.lines.slice(Math.max(0, this.lines.length - limit)).reverse();
    return newestFirst
      .map((line, counter) => {
        const timestamp = snapshotTimestamp(line.at);
        return {
          id: `${timestamp.replace(/[- :]/g, '')}_${counter}`,
          timestamp,
          level: line.level,
          module: line.module,
          message: line.message,
          ...line.style,
        };
      })
      .reverse();
  }
}

function styleOf(input: BotLogInput): Pick<BotLogEntry, 'moduleColor' | 'moduleBold'> {
  return {
    ...(input.moduleColor === undefined ? {} : { moduleColor: input.moduleColor }),
    ...(input.moduleBold === undefined ? {} : { moduleBold: input.moduleBold }),
  };
}
