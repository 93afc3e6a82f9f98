import * as v from 'valibot';
import { describeReceived } from './received-value.js';

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
