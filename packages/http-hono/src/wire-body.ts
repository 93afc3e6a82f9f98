import type * as v from 'valibot';
import type * as schemas from './schemas.js';

type Schemas = typeof schemas;

/** The name of every wire shape schemas.ts declares. */
export type WireShape = { [Name in keyof Schemas]: Schemas[Name] extends v.GenericSchema ? Name : never }[keyof Schemas];

/** A body as it travels, inferred from its schema: `WireBody<'CheckResponse'>`. Clients take their types from here. */
export type WireBody<Name extends WireShape> = v.InferOutput<Schemas[Name]>;
