import * as v from 'valibot';
import { ConfigError } from './config-error.js';

/** A setting given as text by an environment variable or flag; undefined when not given. */
export function readTextSetting<TSchema extends v.GenericSchema>(
  schema: TSchema,
  text: string | undefined,
  label: string,
): v.InferOutput<TSchema> | undefined {
  if (text === undefined) return undefined;
  const result = v.safeParse(schema, text, { abortEarly: true });
  if (result.success) return result.output;
  throw new ConfigError(`${label}: ${result.issues[0].message}`);
}
