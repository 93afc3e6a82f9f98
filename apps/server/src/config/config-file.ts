import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { ConfigError } from './config-error.js';

export type ConfigFile = { found: true; document: Record<string, unknown> } | { found: false };

/** Reads and parses the TOML config file; a missing file is reported as not found, never thrown. */
export function readConfigFile(path: string, label: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { found: false };
    throw new ConfigError(`${label}: cannot read config file (${errorCode(error) ?? String(error)})`);
  }
  try {
    return { found: true, document: parse(text) };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // Only the first line of the reason: the code excerpt below it could show a secret.
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    throw new ConfigError(`${label}: invalid TOML at line ${error.line}, column ${error.column}: ${reason}`);
  }
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
