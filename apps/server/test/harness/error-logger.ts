import type { AppLogger } from '@webui/http-hono';

/** An app logger that keeps only error lines, as text: a fuzzed input must never produce one. */
export class ErrorLogger implements AppLogger {
  readonly errors: string[] = [];
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(fields: object, message: string): void {
    this.errors.push(`${message} ${JSON.stringify(fields)}`);
  }
}
