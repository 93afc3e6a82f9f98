import pino, { type Logger } from 'pino';
import type { WebuiSettings } from '../config/settings.js';
import type { LogFeed } from './log-feed.js';
import { readableLines, writesReadable, type LogDestination } from './readable-lines.js';

export type LogLevel = WebuiSettings['logLevel'];
export type LogFormat = WebuiSettings['logFormat'];

/**
 * Log lines to stdout, readable on a terminal and JSON lines elsewhere (`format`, `[webui] log_format`), and JSON lines to the
 * in-memory feed the WebSocket log stream replays.
 */
export function createLogger(
  level: LogLevel,
  feed: LogFeed,
  destination: LogDestination = process.stdout,
  format: LogFormat = 'auto',
): Logger {
  return pino(
    {
      level,
      // No pid/hostname noise; children name their module, the feed calls the rest 'webui'.
      base: undefined,
      // Belt and braces: fields that could hold a secret are never written, whatever a caller passes. Applied before either
      // stream sees the line, so the readable one is redacted too.
      redact: {
        paths: ['token', 'accessToken', 'access_token', 'new_token', 'secretKey', 'secret_key', 'cookie', 'headers.cookie'],
        censor: '[redacted]',
      },
    },
    pino.multistream([
      { stream: writesReadable(format, destination) ? readableLines(destination) : destination, level },
      { stream: feed.stream, level },
    ]),
  );
}
