import * as v from 'valibot';
import { integerRangeSchema, integerTextSchema } from './integer-range-schema.js';
import { allowedHostEntrySchema, hostEntrySchema, networkEntrySchema, originEntrySchema } from './list-entry-schemas.js';
import { listSchema } from './list-schema.js';
import { describeReceived } from './received-value.js';

const got = (issue: v.BaseIssue<unknown>): string => `got ${describeReceived(issue.input)}`;

export const booleanSchema = v.boolean((issue) => `must be true or false, ${got(issue)}`);

export const hostListSchema = v.pipe(listSchema(hostEntrySchema), v.minLength(1, 'must list at least one address'));

export const portSchema = integerRangeSchema(0, 65535);
export const portTextSchema = integerTextSchema(0, 65535);

export const networkListSchema = listSchema(networkEntrySchema);

// The message never shows the input: it is a secret.
const secretKeyMessage = 'must be a non-empty string';
export const secretKeySchema = v.pipe(v.string(secretKeyMessage), v.check((text) => text.trim() !== '', secretKeyMessage));

export const sessionExpireSchema = integerRangeSchema(1, 365);

export const modeSchema = v.picklist(['production', 'development'], (issue) => `must be "production" or "development", ${got(issue)}`);

export const originListSchema = listSchema(originEntrySchema);

export const allowedHostListSchema = listSchema(allowedHostEntrySchema);

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export const logLevelSchema = v.picklist(logLevels, (issue) => `must be one of ${logLevels.join(', ')}, ${got(issue)}`);
