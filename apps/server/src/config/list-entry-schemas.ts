import { parseCidr, parseIp } from '@webui/core';
import * as v from 'valibot';
import { isAllowedHost } from './allowed-host.js';
import { isHostName } from './host-name.js';
import { parseOrigin } from './origin.js';

const rejectEntry = (entry: string, what: string): string => `entry ${JSON.stringify(entry)} is not ${what}`;

/** An address to listen on; brackets are refused because listen() takes the bare IPv6 address. */
export const hostEntrySchema = v.pipe(
  v.string(),
  v.check(
    (text) => (!text.includes('[') && parseIp(text) !== null) || isHostName(text),
    (issue) => rejectEntry(issue.input, 'an IP address or host name'),
  ),
);

export const networkEntrySchema = v.pipe(
  v.string(),
  v.check((text) => parseCidr(text) !== null, (issue) => rejectEntry(issue.input, 'an IP address or CIDR')),
);

// Browsers send the origin normalised (lower case, no default port), so entries are stored that way.
export const originEntrySchema = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const origin = parseOrigin(dataset.value);
    if (origin !== null) return origin;
    addIssue({ message: rejectEntry(dataset.value, 'an origin like http://localhost:5173 (scheme://host[:port], no path)') });
    return NEVER;
  }),
);

// Host headers compare without case, so entries are kept in lower case.
export const allowedHostEntrySchema = v.pipe(
  v.string(),
  v.check(isAllowedHost, (issue) => rejectEntry(issue.input, 'a host name with optional :port')),
  v.toLowerCase(),
);
