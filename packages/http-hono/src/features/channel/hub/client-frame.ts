import * as v from 'valibot';
import { ClientMessage } from './envelopes.js';

/** What a client's frame is: a message to handle, one too big (closed with 1009), or one answered with an error. */
export type ClientFrame =
  | { kind: 'message'; message: ClientMessage; text: string }
  | { kind: 'too_big' }
  | { kind: 'invalid'; id: string | number | null; code: string; message: string };

/** Reads one frame a client sent: its size, its JSON, then its shape, each refused with its own error. */
export function parseClientFrame(data: unknown, maxMessageBytes: number): ClientFrame {
  const text = typeof data === 'string' ? data : null;
  if (text === null) {
    if (binarySize(data) > maxMessageBytes) return { kind: 'too_big' };
    return invalid(null, 'unsupported_message', 'Send JSON text messages.');
  }
  if (text.length > maxMessageBytes || utf8Length(text) > maxMessageBytes) return { kind: 'too_big' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return invalid(null, 'invalid_json', 'The message is not valid JSON.');
  }
  const id = requestIdOf(raw);
  const parsed = v.safeParse(ClientMessage, raw);
  if (parsed.success) return { kind: 'message', message: parsed.output, text };
  const op = typeof raw === 'object' && raw !== null ? (raw as { op?: unknown }).op : undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid(id, 'invalid_message', 'A message is a JSON object with an "op".');
  if (op !== 'ping' && op !== 'subscribe' && op !== 'unsubscribe' && op !== 'call')
    return invalid(id, 'unknown_op', `Unknown op ${describeOp(op)}.`);
  return invalid(id, 'invalid_message', `Invalid ${String(op)} message: ${parsed.issues[0]?.message ?? 'unexpected shape'}.`);
}

function invalid(id: string | number | null, code: string, message: string): ClientFrame {
  return { kind: 'invalid', id, code, message };
}

/** The op as the client sent it, for the error message; never stringifies a nested value, which may be thousands deep. */
function describeOp(op: unknown): string {
  if (Array.isArray(op)) return 'of type array';
  if (typeof op === 'object' && op !== null) return 'of type object';
  return JSON.stringify(op ?? null).slice(0, 100);
}

function requestIdOf(raw: unknown): string | number | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const encoder = new TextEncoder();

/** The size of `text` on the wire: the limit is in bytes, and one character can take up to 3 of them. */
function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/** Bytes of a binary message (ArrayBuffer, a view of one, or a Blob); 0 when unknown. */
function binarySize(data: unknown): number {
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  if (typeof Blob !== 'undefined' && data instanceof Blob) return data.size;
  return 0;
}
