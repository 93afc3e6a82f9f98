import type { ApiKeyRecord, TokenRecord } from '@webui/core/adapter';
import { errorMessage } from '@webui/core/adapter';

/**
 * The record as Redis keeps it: JSON of the TokenRecord fields in one fixed order, optional fields
 * left out when absent, so equal records serialize to equal strings and the compare-and-set can compare text.
 */
export function canonicalRecordJson(record: TokenRecord): string {
  const canonical: Record<string, unknown> = { accessToken: record.accessToken };
  if (record.tokenSource !== undefined) canonical['tokenSource'] = record.tokenSource;
  canonical['firstSetupCompleted'] = record.firstSetupCompleted;
  if (record.secretKeyFingerprint !== undefined) canonical['secretKeyFingerprint'] = record.secretKeyFingerprint;
  if (record.apiKeys !== undefined) canonical['apiKeys'] = record.apiKeys.map(canonicalKey);
  return JSON.stringify(canonical);
}

/**
 * Every stored text that holds a record equal to `record` as sameTokenRecord judges: no keys and an
 * empty key list are the same record, written either way.
 */
export function recordSpellings(record: TokenRecord): string[] {
  if (record.apiKeys !== undefined && record.apiKeys.length > 0) return [canonicalRecordJson(record)];
  const withoutKeys = { ...record };
  delete withoutKeys.apiKeys;
  return [canonicalRecordJson(withoutKeys), canonicalRecordJson({ ...withoutKeys, apiKeys: [] })];
}

function canonicalKey(key: ApiKeyRecord): ApiKeyRecord {
  return {
    name: key.name,
    scope: key.scope,
    keyHash: key.keyHash,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    lastUsedAt: key.lastUsedAt,
  };
}

/** Reads a stored record back; throws, saying what is wrong, when the text is not one (written by hand or by something else). */
export function decodeRecordJson(text: string): TokenRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`the record is not valid JSON (${errorMessage(error)})`);
  }
  if (!isObject(value)) throw new Error('the record is not a JSON object');
  const { accessToken, tokenSource, firstSetupCompleted, secretKeyFingerprint, apiKeys } = value;
  if (typeof accessToken !== 'string' || accessToken === '') throw new Error('the record has no accessToken');
  if (typeof firstSetupCompleted !== 'boolean') throw new Error('the record has no firstSetupCompleted flag');
  const record: TokenRecord = { accessToken, firstSetupCompleted };
  if (tokenSource !== undefined) {
    if (tokenSource !== 'temporary' && tokenSource !== 'configured') throw new Error('the record has an invalid tokenSource');
    record.tokenSource = tokenSource;
  }
  if (secretKeyFingerprint !== undefined) {
    if (typeof secretKeyFingerprint !== 'string') throw new Error('the record has an invalid secretKeyFingerprint');
    record.secretKeyFingerprint = secretKeyFingerprint;
  }
  if (apiKeys !== undefined) {
    if (!Array.isArray(apiKeys)) throw new Error('the record has an invalid apiKeys list');
    record.apiKeys = apiKeys.map(decodeKey);
  }
  return record;
}

function decodeKey(value: unknown): ApiKeyRecord {
  if (!isObject(value)) throw new Error('the record has an API key that is not an object');
  const { name, scope, keyHash, createdAt, expiresAt, lastUsedAt } = value;
  if (
    typeof name !== 'string' ||
    typeof keyHash !== 'string' ||
    typeof createdAt !== 'number' ||
    (scope !== 'read' && scope !== 'admin') ||
    !isTimeOrNull(expiresAt) ||
    !isTimeOrNull(lastUsedAt)
  ) {
    throw new Error(`the record has an invalid API key${typeof name === 'string' ? ` "${name}"` : ''}`);
  }
  return { name, scope, keyHash, createdAt, expiresAt, lastUsedAt };
}

function isTimeOrNull(value: unknown): value is number | null {
  return value === null || typeof value === 'number';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
