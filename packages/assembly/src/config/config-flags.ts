import * as v from 'valibot';
import { ConfigError } from './settings.js';

/** The configuration flags as typed, not yet validated. */
export interface ConfigFlags {
  config?: string;
  dataDir?: string;
  host?: string;
  port?: string;
  store?: string;
  upstreamUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
}

const flagFields = new Map<string, keyof ConfigFlags>([
  ['--config', 'config'],
  ['--data-dir', 'dataDir'],
  ['--host', 'host'],
  ['--port', 'port'],
  ['--store', 'store'],
  ['--upstream-url', 'upstreamUrl'],
  ['--tls-cert', 'tlsCert'],
  ['--tls-key', 'tlsKey'],
]);

/**
 * Takes --config, --data-dir, --host, --port, --store, --upstream-url, --tls-cert and --tls-key (as "--flag value" or "--flag=value"); every other argument
 * is left in rest for the CLI.
 */
export function parseConfigFlags(argv: readonly string[]): { flags: ConfigFlags; rest: string[] } {
  const flags: ConfigFlags = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // After "--" nothing is ours to read; the CLI sees the separator too.
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg : arg.slice(0, equals);
    const field = flagFields.get(name);
    if (field === undefined) {
      rest.push(arg);
      continue;
    }
    let value: string | undefined;
    if (equals !== -1) value = arg.slice(equals + 1);
    else {
      value = argv[i + 1];
      // A following flag means this one was left without its value.
      if (value !== undefined && !value.startsWith('--')) i++;
      else value = undefined;
    }
    if (value === undefined || value === '') throw new ConfigError(`${name}: missing value`);
    flags[field] = value;
  }
  return { flags, rest };
}

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
