import * as v from 'valibot';
import { isHeaderValueText, templateParts } from './header-template.js';
import { describeReceived, listSchema } from '@webui/http-hono';
import { isFieldName } from '../headers/header-roles.js';
import { refusedHeaderReason } from './upstream-header-name.js';
import { upstreamUrlSchema } from './upstream-url.js';

// Request paths arrive percent-encoded and normalised, so a prefix with other characters or dot segments could never match.
const PATH_TEXT = /^\/(?:[A-Za-z0-9\-._~!$&'()+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

const isPath = (text: string): boolean =>
  PATH_TEXT.test(text) && !text.includes('//') && !text.split('/').some((segment) => segment === '.' || segment === '..');

const PATH_RULES = 'starting with /, without ?, #, //, . or .. segments';

// Prefixes match by whole segments, so "/api/chat/" means "/api/chat".
const pathPrefixSchema = v.pipe(
  v.string(),
  v.check(isPath, (issue) => `entry ${JSON.stringify(issue.input)} is not a path prefix like /api/chat (${PATH_RULES}, no *)`),
  v.transform((path) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)),
);

// "/assets*" would also open "/assetsx": a wildcard is allowed only as a whole last segment.
const publicPathSchema = v.pipe(
  v.string(),
  v.check(
    (text) => isPath(text.endsWith('/*') ? text.slice(0, -1) : text),
    (issue) =>
      `entry ${JSON.stringify(issue.input)} is not a path like /api/webui/version-compatibility or a prefix like /assets/* ` +
      `(${PATH_RULES}, * only as the whole last segment)`,
  ),
);

const pathListSchema = v.pipe(
  listSchema(pathPrefixSchema),
  v.minLength(1, 'must list at least one path prefix (["/"] forwards every path this server does not answer)'),
);

// Names are shown, values never: a value may be the secret itself.
const headerNameSchema = v.pipe(
  v.string(),
  v.check(isFieldName, (issue) => `webui.upstream.headers has a name that is not an HTTP header name: ${JSON.stringify(issue.input)}`),
  v.check(
    (name) => refusedHeaderReason(name) === undefined,
    (issue) => `webui.upstream.headers.${String(issue.input)} is refused: ${refusedHeaderReason(String(issue.input))}`,
  ),
);

const headerValueSchema = v.pipe(
  v.string('must be a string (a secret is read from the environment with ${NAME})'),
  v.check(isHeaderValueText, 'must hold no line break, other control character or character beyond Latin-1'),
  v.check(
    (text) => templateParts(text) !== null,
    'has a "${" that does not start a ${NAME} reference (NAME of letters, digits and _, not starting with a digit)',
  ),
);

/** The first name given twice in other cases: one header either way. */
function repeatedName(headers: Record<string, string>): [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const name of Object.keys(headers)) {
    const earlier = seen.get(name.toLowerCase());
    if (earlier !== undefined) return [earlier, name];
    seen.set(name.toLowerCase(), name);
  }
  return undefined;
}

const headersSchema = v.pipe(
  v.record(headerNameSchema, headerValueSchema, 'must be a table of header names and values'),
  v.check(
    (headers) => repeatedName(headers) === undefined,
    (issue) => {
      const [first, second] = repeatedName(issue.input as Record<string, string>) ?? [];
      return `names one header twice, as ${first} and ${second} (header names ignore case)`;
    },
  ),
);

const timeoutMessage = (issue: v.BaseIssue<unknown>): string =>
  `must be a number of seconds above 0 and at most 3600, got ${describeReceived(issue.input)}`;
const timeoutSchema = v.pipe(
  v.number(timeoutMessage),
  v.check((seconds) => seconds > 0 && seconds <= 3600, timeoutMessage),
);

/** `[webui.upstream]` as written: header values still hold their `${NAME}`, which only the environment at startup fills in. */
export const upstreamTableSchema = v.strictObject(
  {
    url: v.optional(upstreamUrlSchema),
    paths: v.optional(pathListSchema),
    public_paths: v.optional(listSchema(publicPathSchema)),
    headers: v.optional(headersSchema),
    timeout: v.optional(timeoutSchema),
  },
  // A value given in place of the table may be a URL with a password: it is not quoted.
  (issue) => (issue.expected === 'never' ? `unknown key webui.upstream.${String(issue.input)}` : 'must be a table ([webui.upstream])'),
);

export type UpstreamTable = v.InferOutput<typeof upstreamTableSchema>;
