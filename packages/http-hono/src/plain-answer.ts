import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** A JSON answer as plain values: the app sends it with c.json, a runtime's fast path writes it itself. */
export interface JsonAnswer {
  status: ContentfulStatusCode;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** An answer ready for the wire, as a runtime's fast path writes it. */
export interface PlainAnswer {
  status: number;
  /** A fresh object for each answer: a runtime adapter may add its own headers to it. */
  headers: Record<string, string>;
  body: string;
}

/** A JSON answer that is never cached: it carries session state. */
export function jsonAnswer(status: ContentfulStatusCode, body: Record<string, unknown>, extraHeaders: Record<string, string> = {}): JsonAnswer {
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...extraHeaders }, body };
}

/** The bytes c.json would send for the same answer. */
export function plainAnswer(answer: JsonAnswer): PlainAnswer {
  return { status: answer.status, headers: answer.headers, body: JSON.stringify(answer.body) };
}
