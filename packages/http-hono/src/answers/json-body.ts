import type { Context } from 'hono';
import * as v from 'valibot';
import type { WebuiEnv } from '../app-env.js';
import { payloadTooLarge, readBodyText } from '../middleware/state-change/body-limit.js';
import { errorBody } from './error-body.js';
import { requestHeader } from '../runtime-port.js';

export type JsonBody<T> = { ok: true; value: T } | { ok: false; response: Response };

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** Reads a JSON body and validates it; every failure is a 4xx with the error body (docs/decisions/0001-error-bodies.md), never a 500. */
export async function readJsonBody<TSchema extends v.GenericSchema>(
  c: Context<WebuiEnv>,
  schema: TSchema,
): Promise<JsonBody<v.InferOutput<TSchema>>> {
  const contentType = requestHeader(c, 'content-type') ?? '';
  if (!JSON_CONTENT_TYPE.test(contentType)) {
    return {
      ok: false,
      response: errorBody(c, 415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.'),
    };
  }
  if (!declaresUtf8OrNothing(contentType)) {
    // 415, not 400: the body may be fine, it is its declared encoding (part of the media type) that is not served.
    return { ok: false, response: errorBody(c, 415, 'unsupported_charset', 'Send the JSON body as UTF-8: charset=utf-8, or no charset.') };
  }
  let data: unknown;
  try {
    const text = await readBodyText(c);
    if (text === null) return { ok: false, response: payloadTooLarge(c) };
    data = JSON.parse(text);
  } catch {
    return { ok: false, response: errorBody(c, 400, 'invalid_json', 'The request body is not valid JSON.') };
  }
  const parsed = v.safeParse(schema, data);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue ? v.getDotPath(issue) : null;
    const detail = field ? `Field "${field}": ${issue?.message}` : `Invalid body: ${issue?.message ?? 'unexpected shape'}`;
    return { ok: false, response: errorBody(c, 422, 'invalid_body', detail) };
  }
  return { ok: true, value: parsed.output };
}

/** Whether every charset parameter of a Content-Type says utf-8 (any case, quoted or not): the body is always read as UTF-8. */
function declaresUtf8OrNothing(contentType: string): boolean {
  for (const parameter of contentType.split(';').slice(1)) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = parameter.slice(eq + 1).trim();
    const unquoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    if (unquoted.toLowerCase() !== 'utf-8') return false;
  }
  return true;
}
