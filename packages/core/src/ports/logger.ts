/** Structured log lines (pino's Logger fits it): where the outcome of an operation is told to the operator. */
export interface Logger {
  /** When present and false for 'debug', debug lines are not even assembled. */
  isLevelEnabled?(level: 'debug'): boolean;
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
