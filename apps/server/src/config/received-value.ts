/** How a rejected value is shown after "got": strings quoted so blanks and commas stay visible. */
export function describeReceived(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return `[${value.map(describeReceived).join(', ')}]`;
  if (value instanceof Date) return 'a date';
  if (value === undefined || value === null) return 'nothing';
  return 'a table';
}
