/** The channel's envelopes as the original builds them (dashboard contract §3). */
export type Envelope = Record<string, unknown> & { op: string };

/** A `response`: `id` echoed as sent (null when the message had none); `data` on success, `error: {code, message}` on failure. */
export function response(id: unknown, ok: true, data: Record<string, unknown>): Envelope;
export function response(id: unknown, ok: false, error: { code: string; message: string }): Envelope;
export function response(id: unknown, ok: boolean, payload: Record<string, unknown>): Envelope {
  return ok ? { op: 'response', id: id ?? null, ok, data: payload } : { op: 'response', id: id ?? null, ok, error: payload };
}

/** An `event`; `session` and `topic` only when given, as the original leaves them out otherwise. */
export function event(
  domain: string,
  name: string,
  data: Record<string, unknown>,
  extra: { session?: string; topic?: string } = {},
): Envelope {
  return {
    op: 'event',
    domain,
    event: name,
    data,
    ...(extra.session === undefined ? {} : { session: extra.session }),
    ...(extra.topic === undefined ? {} : { topic: extra.topic }),
  };
}

/** The original's wall clock in its envelopes: seconds since the epoch, with a fraction. */
export const epochSeconds = (): number => Date.now() / 1000;

/** A message field read as the original reads it: `str(value or "").strip()`. */
export function textField(message: Record<string, unknown>, key: string): string {
  const value = message[key];
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && value !== 0) return String(value);
  return '';
}

/** The message's `data` when it is an object, else `{}`. */
export function dataField(message: Record<string, unknown>): Record<string, unknown> {
  const data = message['data'];
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** A non-negative whole number from a subscription parameter (number or numeric string), else `fallback`. */
export function nonNegativeInt(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, Math.trunc(value));
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Math.max(0, Number.parseInt(value, 10));
  return fallback;
}
