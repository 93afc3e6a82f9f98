import type { ApiKeyRecord, TokenRecord } from '@webui/core/adapter';
import * as v from 'valibot';
import { errorMessage } from '@webui/core/adapter';

/** The name of the token file inside the data directory (spec: Access token). */
export const RECORD_FILE_NAME = 'webui.json';

const KNOWN_FIELDS = new Set(['access_token', 'token_source', 'first_setup_completed', 'secret_key_fingerprint', 'api_keys']);

// Times are ISO 8601 in the file, so an operator reading it sees dates; the record keeps milliseconds.
const IsoTime = v.pipe(
  v.string(),
  v.isoTimestamp('must be an ISO 8601 time'),
  v.transform((text) => Date.parse(text)),
);

const ApiKeyFileSchema = v.object({
  name: v.pipe(v.string('name must be a string'), v.nonEmpty('name must not be empty')),
  scope: v.picklist(['read', 'admin'], 'scope must be "read" or "admin"'),
  key_sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'key_sha256 must be 64 lower-case hex characters')),
  created_at: IsoTime,
  expires_at: v.nullable(IsoTime),
  last_used_at: v.nullable(IsoTime),
});

// Loose: fields this version does not know are kept, so a newer or older server can share the file.
const RecordFileSchema = v.looseObject({
  access_token: v.pipe(v.string('access_token must be a string'), v.nonEmpty('access_token must not be empty')),
  token_source: v.optional(v.picklist(['temporary', 'configured'], 'token_source must be "temporary" or "configured"')),
  // Files that predate the setup wizard have no flag: setup was never completed there.
  first_setup_completed: v.optional(v.boolean('first_setup_completed must be true or false'), false),
  secret_key_fingerprint: v.optional(v.string('secret_key_fingerprint must be a string')),
  api_keys: v.optional(v.array(ApiKeyFileSchema, 'api_keys must be a list')),
});

export type UnknownFields = Record<string, unknown>;

export interface RecordFileContent {
  record: TokenRecord;
  unknownFields: UnknownFields;
}

export type RecordFileParse = { ok: true; value: RecordFileContent } | { ok: false; reason: string };

/** Reads the snake_case file format into a record plus the fields this version does not know. */
export function parseRecordFile(bytes: Uint8Array): RecordFileParse {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'the file is not valid UTF-8' };
  }
  if (text.trim() === '') return { ok: false, reason: 'the file is empty' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `the file is not valid JSON${jsonErrorPlace(text, errorMessage(error))}` };
  }
  const parsed = v.safeParse(RecordFileSchema, json);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? '(top level)'}: ${issue.message}`);
    return { ok: false, reason: `the file has the wrong shape (${problems.join('; ')})` };
  }
  const { access_token, token_source, first_setup_completed, secret_key_fingerprint, api_keys } = parsed.output;
  const record: TokenRecord = { accessToken: access_token, firstSetupCompleted: first_setup_completed };
  // Left undefined for files of older versions: the core infers the source from the token (docs/decisions/0012-token-file.md).
  if (token_source !== undefined) record.tokenSource = token_source;
  if (secret_key_fingerprint !== undefined) record.secretKeyFingerprint = secret_key_fingerprint;
  if (api_keys !== undefined) {
    record.apiKeys = api_keys.map((key) => ({
      name: key.name,
      scope: key.scope,
      keyHash: key.key_sha256,
      createdAt: key.created_at,
      expiresAt: key.expires_at,
      lastUsedAt: key.last_used_at,
    }));
  }
  return { ok: true, value: { record, unknownFields: unknownFieldsOf(parsed.output) } };
}

/** Writes the record in the file format, unknown fields after the known ones. */
export function serializeRecordFile(record: TokenRecord, unknownFields: UnknownFields): string {
  const file: Record<string, unknown> = {
    access_token: record.accessToken,
    ...(record.tokenSource !== undefined ? { token_source: record.tokenSource } : {}),
    first_setup_completed: record.firstSetupCompleted,
    ...(record.secretKeyFingerprint !== undefined ? { secret_key_fingerprint: record.secretKeyFingerprint } : {}),
    ...(record.apiKeys !== undefined ? { api_keys: record.apiKeys.map(apiKeyFileEntry) } : {}),
  };
  return `${JSON.stringify({ ...file, ...unknownFieldsOf(unknownFields) }, null, 2)}\n`;
}

function unknownFieldsOf(object: Record<string, unknown>): UnknownFields {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !KNOWN_FIELDS.has(key)));
}

function apiKeyFileEntry(key: ApiKeyRecord): Record<string, unknown> {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    name: key.name,
    scope: key.scope,
    key_sha256: key.keyHash,
    created_at: iso(key.createdAt),
    expires_at: iso(key.expiresAt),
    last_used_at: iso(key.lastUsedAt),
  };
}

/**
 * Where JSON.parse stopped, as line and column, and nothing else of its message: that message may quote the
 * text around the error, which in this file can be the token itself (an unquoted value typed by hand).
 */
function jsonErrorPlace(text: string, message: string): string {
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return '';
  const before = text.slice(0, Number(position)).split('\n');
  return ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
}
