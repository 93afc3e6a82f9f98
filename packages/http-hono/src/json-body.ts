import type { Context } from 'hono';
import * as v from 'valibot';
import type { WebuiEnv } from './app-env.js';
import { payloadTooLarge, readBodyText } from './body-limit.js';
import { errorBody } from './error-body.js';
import { requestHeader } from './runtime-port.js';

export type JsonBody<T> = { ok: true; value: T } | { ok: false; response: Response };

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** Reads a JSON body and validates it; every failure is a 4xx with the D1 body, never a 500. */
export async function readJsonBody<TSchema extends v.GenericSchema>(c: Context<WebuiEnv>, schema: TSchema): Promise<JsonBody<v.InferOutput<TSchema>>> {
  const contentType = requestHeader(c, 'content-type') ?? '';
  if (!JSON_CONTENT_TYPE.test(contentType)) {
    return { ok: false, response: errorBody(c, 415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.') };
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
