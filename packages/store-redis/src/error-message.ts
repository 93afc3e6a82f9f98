/** The message of anything thrown, for error texts and events. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
