import * as v from 'valibot';

/**
 * What a settings table of the config file is built with, by the assembly's `[webui]` and a feature's own table (the gateway's
 * `[webui.upstream]`): how a rejected value is quoted, how a list is written, where a value came from, what the reference says.
 */

/** How a rejected value is shown after "got": strings quoted so blanks and commas stay visible. */
export function describeReceived(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return `[${value.map(describeReceived).join(', ')}]`;
  if (value instanceof Date) return 'a date';
  if (value === undefined || value === null) return 'nothing';
  return 'a table';
}

const listMessage = (issue: v.BaseIssue<unknown>): string =>
  `must be a list of strings or a comma-separated string, got ${describeReceived(issue.input)}`;

/** A list written as a TOML array of strings or as one comma-separated string; entries trimmed, blanks dropped. */
export function listSchema<TEntry>(entry: v.GenericSchema<string, TEntry>) {
  return v.pipe(v.union([v.array(v.string()), v.string()], listMessage), v.transform(toEntries), v.array(entry));
}

function toEntries(value: string[] | string): string[] {
  const parts = typeof value === 'string' ? value.split(',') : value;
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** Where a setting's value came from, merged flag > env > file > default. */
export type SettingSource = 'flag' | 'env' | 'file' | 'default';

/**
 * What the configuration reference (docs/reference/configuration.md, written by `npm run docs`) says of a key beyond what its
 * schema and default give: the variable and flag that also set it, and one sentence.
 */
export interface SettingNote {
  env?: string;
  flag?: string;
  description: string;
}
