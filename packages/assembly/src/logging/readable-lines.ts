import { prettyFactory } from 'pino-pretty';
import type { WebuiSettings } from '../config/settings.js';

/** Where the log lines go: a stream that may be a terminal. */
export interface LogDestination {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** "auto" is readable on a terminal and JSON lines anywhere else (a file, a pipe, journald, a collector). */
export function writesReadable(format: WebuiSettings['logFormat'], destination: LogDestination): boolean {
  return format === 'pretty' || (format === 'auto' && destination.isTTY === true);
}

/**
 * A pino destination that writes each JSON line as a readable one, at once: pino-pretty's formatter called in the
 * write itself (no worker, no stream pipeline), so a line is out before the next statement runs on Node, Bun and
 * Deno alike, and nothing is lost in a crash or printed inside the banner.
 */
export function readableLines(destination: LogDestination, colorize = destination.isTTY === true && !('NO_COLOR' in process.env)) {
  const pretty = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'module',
    // The module a line comes from (http, ws, store, ...) leads its message; lines of the server itself have none.
    messageFormat: '{if module}{module}: {end}{msg}',
    singleLine: true,
  });
  return {
    write(line: string): boolean {
      destination.write(pretty(line));
      return true;
    },
  };
}
