import * as v from 'valibot';

/** Every refusal on the control socket: a code a script can test and one sentence for the operator. */
export const ControlRefusal = v.object({ ok: v.literal(false), code: v.string(), detail: v.string() });
