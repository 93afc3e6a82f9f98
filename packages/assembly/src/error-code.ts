/** The `code` of a system error (ENOENT, EEXIST, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
