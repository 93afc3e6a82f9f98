import { isAbsoluteSocketPath, parseCidr, parseIp, unixSocketPath, type Cidr } from '@webui/core/net';
import { describeReceived, isDnsName, isWellFormedHost, listSchema } from '@webui/http-hono';
import { parseRedisUrl } from '@webui/store-redis';
import * as v from 'valibot';
import { isWiderThan, WIDEST_NETWORK_PREFIX } from './network-width.js';

const got = (issue: v.BaseIssue<unknown>): string => `got ${describeReceived(issue.input)}`;

/** The normalised origin of an http(s) URL written as scheme://host[:port]; null if it has a path, query or credentials. */
function parseOrigin(text: string): string | null {
  // The URL parser would otherwise accept "http:localhost" and friends.
  if (!/^https?:\/\/[^/]/i.test(text) || !URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') return null;
  if (text.includes('?') || text.includes('#')) return null;
  return url.origin;
}

const rangeMessage =
  (min: number, max: number) =>
  (issue: v.BaseIssue<unknown>): string =>
    `must be an integer from ${min} to ${max}, got ${describeReceived(issue.input)}`;

/** A TOML integer within [min, max]. */
function integerRangeSchema(min: number, max: number) {
  const message = rangeMessage(min, max);
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
}

/** The same integer written as text in an environment variable or flag. */
function integerTextSchema(min: number, max: number) {
  const message = rangeMessage(min, max);
  return v.pipe(
    v.string(message),
    // Checked on the text so the message quotes what the operator typed.
    v.check((text) => /^\d{1,9}$/.test(text) && Number(text) >= min && Number(text) <= max, message),
    v.transform(Number),
  );
}

const rejectEntry = (entry: string, what: string): string => `entry ${JSON.stringify(entry)} is not ${what}`;

/** An address to listen on, or a Unix socket; brackets are refused because listen() takes the bare IPv6 address. */
const hostEntrySchema = v.pipe(
  v.string(),
  v.check(
    (text) => (!text.includes('[') && parseIp(text) !== null) || isDnsName(text) || isAbsoluteSocketPath(unixSocketPath(text)),
    (issue) => rejectEntry(issue.input, 'an IP address, host name or unix:/absolute/path'),
  ),
);

const networkEntrySchema = v.pipe(
  v.string(),
  v.check(
    (text) => parseCidr(text) !== null,
    (issue) => rejectEntry(issue.input, 'an IP address or CIDR'),
  ),
);

// A trusted proxy's X-Forwarded-For is believed: trusting everyone would let every client pick the address it is counted under.
const trustedProxyEntrySchema = v.pipe(
  networkEntrySchema,
  v.check(
    (text) => !isWiderThan(parseCidr(text) as Cidr, WIDEST_NETWORK_PREFIX),
    (issue) =>
      `entry ${JSON.stringify(issue.input)} trusts more than any network of proxies (wider than a /${WIDEST_NETWORK_PREFIX[4]} for IPv4 ` +
      `or a /${WIDEST_NETWORK_PREFIX[6]} for IPv6): anyone in it could choose the address they are counted under`,
  ),
);

// Browsers send the origin normalised (lower case, no default port), so entries are stored that way.
const originEntrySchema = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const origin = parseOrigin(dataset.value);
    if (origin !== null) return origin;
    addIssue({ message: rejectEntry(dataset.value, 'an origin like http://localhost:5173 (scheme://host[:port], no path)') });
    return NEVER;
  }),
);

// Host headers compare without case, so entries are kept in lower case.
const allowedHostEntrySchema = v.pipe(
  v.string(),
  v.check(isWellFormedHost, (issue) => rejectEntry(issue.input, 'a host name with optional :port')),
  v.toLowerCase(),
);

export const booleanSchema = v.boolean((issue) => `must be true or false, ${got(issue)}`);

export const hostListSchema = v.pipe(listSchema(hostEntrySchema), v.minLength(1, 'must list at least one address'));

export const portSchema = integerRangeSchema(0, 65535);
export const portTextSchema = integerTextSchema(0, 65535);

export const networkListSchema = listSchema(networkEntrySchema);

export const trustedProxyListSchema = listSchema(trustedProxyEntrySchema);

// The message never shows the input: it is a secret.
const secretKeyMessage = 'must be a non-empty string';
export const secretKeySchema = v.pipe(
  v.string(secretKeyMessage),
  v.check((text) => text.trim() !== '', secretKeyMessage),
);

export const sessionExpireSchema = integerRangeSchema(1, 365);

export const modeSchema = v.picklist(['production', 'development'], (issue) => `must be "production" or "development", ${got(issue)}`);

export const originListSchema = listSchema(originEntrySchema);

export const allowedHostListSchema = listSchema(allowedHostEntrySchema);

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export const logLevelSchema = v.picklist(logLevels, (issue) => `must be one of ${logLevels.join(', ')}, ${got(issue)}`);

const logFormats = ['auto', 'pretty', 'json'] as const;
export const logFormatSchema = v.picklist(logFormats, (issue) => `must be one of ${logFormats.join(', ')}, ${got(issue)}`);

// Port 0 would pick a port nobody could be told to scrape.
export const metricsPortSchema = integerRangeSchema(1, 65535);

// 0 turns the budget off; a million an hour is past any real use, so a larger number is a typo.
export const globalFailureBudgetSchema = integerRangeSchema(0, 1_000_000);

// At least one connection; past a million it is no cap at all, so a larger number is a typo.
export const maxConnectionsPerClientSchema = integerRangeSchema(1, 1_000_000);

// 4 KiB still holds a few dozen lines; past 1 GiB a file is no longer one an operator reads through.
export const auditMaxBytesSchema = integerRangeSchema(4096, 1_073_741_824);
export const auditKeepSchema = integerRangeSchema(1, 100);

/** `store`: "file" (data_dir/webui.json) or the URL of a Redis shared by several instances. */
export const FILE_STORE = 'file';

// The message never shows a password: parseRedisUrl quotes the URL with it replaced by ***.
export const storeSchema = v.pipe(
  v.string('must be "file", a redis:// or a redis-cluster:// URL'),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    if (dataset.value === FILE_STORE) return dataset.value;
    const parsed = parseRedisUrl(dataset.value);
    if (parsed.ok) return dataset.value;
    addIssue({ message: `must be "file" or a Redis URL: ${parsed.error}` });
    return NEVER;
  }),
);

// Under this prefix go every key and channel; one Redis can then serve several independent deployments.
export const storePrefixSchema = v.pipe(
  v.string((issue) => `must be a string, ${got(issue)}`),
  v.check(
    (text) => /^[\x21-\x7e]{1,64}$/.test(text),
    (issue) => `must be 1 to 64 visible ASCII characters without spaces, got ${describeReceived(issue.input)}`,
  ),
);
