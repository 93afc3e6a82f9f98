import type * as v from 'valibot';
import { ClientMessage as ClientMessageSchema, type ServerEnvelope as ServerEnvelopeSchema } from '../ws-schemas.js';

// The frames are declared once, in schemas/ws.ts, beside every other wire shape.
export { LogSubscribeData } from '../ws-schemas.js';
export const ClientMessage = ClientMessageSchema;
export type ClientMessage = v.InferOutput<typeof ClientMessageSchema>;
export type ServerEnvelope = v.InferOutput<typeof ServerEnvelopeSchema>;
