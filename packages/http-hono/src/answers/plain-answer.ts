import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** A JSON answer as plain values: the app sends it with c.json, a runtime's fast path writes it itself. */
export interface JsonAnswer {
  status: ContentfulStatusCode;
  /** The answer's own headers; the JSON type and no-store come from c.json and the edge on the app's path. */
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

export function jsonAnswer(status: ContentfulStatusCode, body: Record<string, unknown>, headers: Record<string, string> = {}): JsonAnswer {
  return { status, headers, body };
}

/**
 * What the app's path would send for the same answer: c.json's type and body, the edge's no-store
 * (every answer carries session state), then the answer's own headers.
 */
export function plainAnswer(answer: JsonAnswer): PlainAnswer {
  // Grown in place rather than spread: a runtime adds its own headers, and a literal keeps V8's fast shape for writeHead.
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
  for (const name in answer.headers) headers[name] = answer.headers[name] as string;
  return { status: answer.status, headers, body: JSON.stringify(answer.body) };
}
