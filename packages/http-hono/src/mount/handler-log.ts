import type { Logger } from '@webui/core';

/** One level of HandlerLog: a message, or fields then a message (pino's order). */
export interface HandlerLogFn {
  (message: string): void;
  (fields: object, message?: string): void;
}

/**
 * The logger a bot's route and channel call handlers get (module `bot`; pino's Logger fits it): its lines reach the
 * channel's logs domain, the dashboard's log view, and the process output, redacted and formatted as the server's own.
 */
export interface HandlerLog {
  debug: HandlerLogFn;
  info: HandlerLogFn;
  warn: HandlerLogFn;
  error: HandlerLogFn;
}

/** A HandlerLog over the core's Logger port (fields, then a message): what handlers get when the app is given none. */
export function handlerLogOver(logger: Logger): HandlerLog {
  const level =
    (write: (fields: object, message: string) => void): HandlerLogFn =>
    (first: string | object, message?: string) =>
      typeof first === 'string' ? write({}, first) : write(first, message ?? '');
  return {
    debug: level((fields, message) => logger.debug(fields, message)),
    info: level((fields, message) => logger.info(fields, message)),
    warn: level((fields, message) => logger.warn(fields, message)),
    error: level((fields, message) => logger.error(fields, message)),
  };
}
