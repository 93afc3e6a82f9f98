import { schemas, type BanEntryJson } from '@webui/http-hono';
import * as v from 'valibot';
import { AdminRequest, type AdminAnswer, type AdminRefusalCode } from './admin-protocol.js';
import { ControlRefusal as RefusalSchema } from './control-refusal.js';

export { ControlRefusal } from './control-refusal.js';

/** One request per line, one answer per line; a longer line is refused before it is parsed. */
export const MAX_REQUEST_LINE_BYTES = 16 * 1024;

/** What the CLI may ask the running server; unknown fields are ignored, so an older server understands a newer CLI. */
export const ControlRequest = v.variant('op', [
  v.object({ op: v.literal('bans.list') }),
  v.object({ op: v.literal('bans.lift'), target: v.string() }),
  AdminRequest,
]);
export type ControlRequest = v.InferOutput<typeof ControlRequest>;

export type ControlErrorCode = 'bad_request' | 'invalid_ban_target' | 'internal_error' | AdminRefusalCode;

export type ControlRefusal = { ok: false; code: ControlErrorCode; detail: string };

/** The answers, in the HTTP API's ban entry shape (banEntryJson), checked by the CLI as it reads them. */
export const BansListAnswer = v.union([v.object({ ok: v.literal(true), bans: v.array(schemas.BanEntryBody) }), RefusalSchema]);
export const BansLiftAnswer = v.union([v.object({ ok: v.literal(true), lifted: v.array(schemas.BanEntryBody) }), RefusalSchema]);

export type ControlAnswer = { ok: true; bans: BanEntryJson[] } | { ok: true; lifted: BanEntryJson[] } | AdminAnswer | ControlRefusal;

/** A request line read as JSON and checked, or the one-line reason it was not understood. */
export function parseControlRequest(line: string): { ok: true; request: ControlRequest } | { ok: false; detail: string } {
  const notAnObject = { ok: false, detail: 'a request is one JSON object per line' } as const;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return notAnObject;
  }
  // valibot takes an array for an object missing `op`; say what is wrong instead.
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return notAnObject;
  const result = v.safeParse(ControlRequest, json, { abortEarly: true });
  if (result.success) return { ok: true, request: result.output };
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  return { ok: false, detail: path ? `${path}: ${issue.message}` : issue.message };
}
