import type { IncomingMessage } from 'node:http';

/*
 * A speed-up of the Node runtime port (docs/decisions/0031-one-pipeline-measured-speed-ups.md): a request header read
 * straight from the IncomingMessage, so that @hono/node-server builds no web Request for it.
 */

// Node keeps only the first of these when a request repeats them; a web Headers joins them. They are
// read from the raw lines instead, so a second Host, Content-Type or Authorization is seen, never silently dropped.
const FIRST_ONLY_IN_NODE = new Set(['host', 'content-type', 'content-length', 'authorization']);

/** Every value of a header, joined as a web Headers joins them. */
function joinedRawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  let joined: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = rawHeaders[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    const value = rawHeaders[i + 1] as string;
    joined = joined === undefined ? value : `${joined}, ${value}`;
  }
  return joined;
}

/** A request header by lower-case name, repeated fields joined as a web Headers joins them. */
export function incomingHeader(incoming: IncomingMessage, name: string): string | undefined {
  if (FIRST_ONLY_IN_NODE.has(name)) return joinedRawHeader(incoming.rawHeaders, name);
  // Node joins repeated fields with ", " (Cookie with "; ", which is how cookies are split anyway).
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
