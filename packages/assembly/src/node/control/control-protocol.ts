import * as v from 'valibot';
import { AdminRequest, type AdminAnswer, type AdminRefusalCode } from './admin-protocol.js';

/** One request per line, one answer per line; a longer line is refused before it is parsed. */
export const MAX_REQUEST_LINE_BYTES = 16 * 1024;

export type ControlErrorCode = 'bad_request' | 'internal_error' | AdminRefusalCode;

export type ControlRefusal = { ok: false; code: ControlErrorCode; detail: string };

export type ControlAnswer = AdminAnswer | ControlRefusal;

/** A request line read as JSON and checked, or the one-line reason it was not understood. */
export function parseControlRequest(line: string): { ok: true; request: AdminRequest } | { ok: false; detail: string } {
  const notAnObject = { ok: false, detail: 'a request is one JSON object per line' } as const;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return notAnObject;
  }
  // valibot takes an array for an object missing `op`; say what is wrong instead.
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return notAnObject;
  // Unknown fields are ignored, so an older server understands a newer CLI.
  const result = v.safeParse(AdminRequest, json, { abortEarly: true });
  if (result.success) return { ok: true, request: result.output };
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  return { ok: false, detail: path ? `${path}: ${issue.message}` : issue.message };
}
