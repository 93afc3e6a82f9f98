import * as v from 'valibot';
import { describeReceived } from './received-value.js';

const rangeMessage = (min: number, max: number) => (issue: v.BaseIssue<unknown>): string =>
  `must be an integer from ${min} to ${max}, got ${describeReceived(issue.input)}`;

/** A TOML integer within [min, max]. */
export function integerRangeSchema(min: number, max: number) {
  const message = rangeMessage(min, max);
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
}

/** The same integer written as text in an environment variable or flag. */
export function integerTextSchema(min: number, max: number) {
  const message = rangeMessage(min, max);
  return v.pipe(
    v.string(message),
    // Checked on the text so the message quotes what the operator typed.
    v.check((text) => /^\d{1,9}$/.test(text) && Number(text) >= min && Number(text) <= max, message),
    v.transform(Number),
  );
}
