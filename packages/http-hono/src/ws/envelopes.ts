import * as v from 'valibot';

/** Messages a client may send, ping, subscribe and unsubscribe (DESIGN D13); anything else is answered with ok:false. */
const RequestId = v.union([v.string(), v.number()]);

export const ClientMessage = v.variant('op', [
  v.looseObject({ op: v.literal('ping') }),
  v.looseObject({ op: v.literal('subscribe'), id: RequestId, domain: v.string(), topic: v.string(), data: v.optional(v.unknown()) }),
  v.looseObject({ op: v.literal('unsubscribe'), id: RequestId, domain: v.string(), topic: v.string() }),
]);

export type ClientMessage = v.InferOutput<typeof ClientMessage>;

export const LogSubscribeData = v.optional(
  v.looseObject({
    replay: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(500)), 100),
  }),
  {},
);

export type ServerEnvelope =
  | { op: 'event'; domain: string; event: string; topic?: string; data: unknown }
  | { op: 'response'; id: string | number | null; ok: true; data?: unknown }
  | { op: 'response'; id: string | number | null; ok: false; error: { code: string; message: string } }
  | { op: 'pong'; ts: number };
