import type { Context } from 'hono';
import * as v from 'valibot';
import type { WebuiEnv } from '../app-env.js';
import { payloadTooLarge, readBodyText } from '../middleware/state-change/body-limit.js';
import { errorBody } from './error-body.js';
import { requestHeader } from '../runtime-port.js';
import type { WireBody } from '../wire-body.js';

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
  const parsed = v.safeParse(schema, data, { abortEarly: false });
  if (!parsed.success) {
    const { detail, problems } = bodyProblems(parsed.issues);
    return { ok: false, response: errorBody(c, 422, 'invalid_body', detail, { problems }) };
  }
  return { ok: true, value: parsed.output };
}

/** One thing wrong with a body: where (a dot path such as `token` or `items.0.name`; '' for the body itself) and what. */
export type BodyProblem = WireBody<'InvalidRequestBody'>['problems'][number];

/** At most this many problems are listed (a 16 KiB array of wrong items would make thousands); `detail` counts the rest. */
export const MAX_LISTED_PROBLEMS = 20;

/** Every problem valibot found in a body, and the sentence that names them: what a 422 `invalid_body` answers (docs/decisions/0039-the-api-names-its-scopes.md). */
export function bodyProblems(issues: readonly [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): {
  detail: string;
  problems: BodyProblem[];
} {
  const problems = issues.slice(0, MAX_LISTED_PROBLEMS).map((issue) => ({ path: v.getDotPath(issue) ?? '', message: issue.message }));
  const named = problems.map(({ path, message }) => `${path === '' ? 'the body' : `"${path}"`}: ${message}`).join('; ');
  const more = issues.length - problems.length;
  const count = issues.length === 1 ? 'one problem' : `${issues.length} problems`;
  const detail = `The request body has ${count}: ${named}${more > 0 ? `; and ${more} more` : ''}.`;
  return { detail, problems };
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
