import pino, { type Logger } from 'pino';
import type { LogFeed } from './log-feed.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** JSON lines to stdout and to the in-memory feed the WebSocket log stream replays. */
export function createLogger(level: LogLevel, feed: LogFeed, destination: NodeJS.WritableStream = process.stdout): Logger {
  return pino(
    {
      level,
      // No pid/hostname noise; children name their module, the feed calls the rest 'webui'.
      base: undefined,
      // Belt and braces: fields that could hold a secret are never written, whatever a caller passes.
      redact: {
        paths: ['token', 'accessToken', 'access_token', 'new_token', 'secretKey', 'secret_key', 'cookie', 'headers.cookie'],
        censor: '[redacted]',
      },
    },
    pino.multistream([
      { stream: destination, level },
      { stream: feed.stream, level },
    ]),
  );
}
