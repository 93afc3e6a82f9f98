import * as v from 'valibot';
import { booleanSchema } from '../config/setting-schemas.js';

const pathMessage = 'must be the path of a PEM file';

/** A PEM file's path as written: resolved against the working directory, as data_dir is. */
export const pemPathSchema = v.pipe(
  v.string(pathMessage),
  v.check((text) => text.trim() !== '' && !text.includes('\0'), pathMessage),
);

/** `[webui.tls]` as written; which combinations make sense is checked when the layers are merged (resolveTls). */
export const tlsTableSchema = v.strictObject(
  {
    cert: v.optional(pemPathSchema),
    key: v.optional(pemPathSchema),
    self_signed: v.optional(booleanSchema),
    hsts: v.optional(booleanSchema),
  },
  (issue) => (issue.expected === 'never' ? `unknown key webui.tls.${String(issue.input)}` : 'must be a table ([webui.tls])'),
);

export type TlsTable = v.InferOutput<typeof tlsTableSchema>;
