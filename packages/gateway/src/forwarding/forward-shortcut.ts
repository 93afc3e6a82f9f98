import type { Awaitable, SecurityEventSink } from '@webui/core';
import {
  callerIdentity,
  plainAnswer,
  type AdmittedRead,
  type AppLogger,
  type PlainAnswer,
  type PlainRead,
  type ReadAccess,
} from '@webui/http-hono';
import type { RefusedRead } from '@webui/http-hono';
import { identityHeaders } from '../headers/identity-headers.js';
import { parsedHeaderFields, PlainHeaders, rawHeaderFields } from '../headers/plain-headers.js';
import { writeUpstreamAnswerHeaders } from '../headers/upstream-answer-headers.js';
import { writeUpstreamRequestHeaders } from '../headers/upstream-request-headers.js';
import type { ForwardCounts, UpstreamOptions } from '../upstream-options.js';
import { mayResolveElsewhere, type ForwardedPaths } from './forwarded-paths.js';
import { failureCause } from './forward-to-upstream.js';
import { upstreamFailureFields, type UpstreamFailure, type UpstreamWarnings } from './upstream-failure.js';

/**
 * A request-target the shortcut takes as it comes: a path and maybe a query of characters that URL parsing leaves as they
 * are (no %, no backslash, no quote in the query, a query that is not empty), so the path the rules judge and the one sent
 * are the app's. Anything else goes to the app.
 */
const PLAIN_TARGET = /^\/[\w\-.~!$&'()*+,;=:@/]*(?:\?[\w\-.~!$&()*+,;=:@/?%]+)?$/;

/** Where the upstream listens, for a runtime's own HTTP client: an http: origin, dialled at `socketPath` when it has one. */
export interface ShortcutTarget {
  origin: string;
  socketPath?: string;
}

/** An answer's header fields as an HTTP client parses them: lower-case names, a repeated field's values in an array. */
export type ParsedHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The gateway's rules for a forwarded GET or HEAD as plain functions, for a runtime that forwards it without the app (Node's
 * fast path, packages/assembly/src/node/fast-path/forward-listener.ts): the same forwarded paths, the app's edge, session and scope
 * steps (ReadAccess), the same header rules, identity headers and assertion, the same failure answers and warnings, and the
 * same counts. The runtime only moves the bytes.
 */
export interface ForwardShortcut {
  readonly target: ShortcutTarget;
  /** How long the head of an upstream answer may take (webui.upstream.timeout). */
  readonly timeoutMs: number;
  /** The path of a request the shortcut may take (a forwarded GET or HEAD with a plain target), or null: the app's. */
  takes(method: string, target: string): string | null;
  /**
   * The pipeline's verdict (at once when the store answers at once), or null: the app's (it then judges the request itself;
   * nothing was counted).
   */
  admit(request: PlainRead): Awaitable<AdmittedRead | RefusedRead> | null;
  /** The upstream request's headers for an admitted read; `rawHeaders` as Node gives them. */
  requestHeaders(
    rawHeaders: readonly string[],
    admitted: AdmittedRead,
    request: { method: string; path: string; host: string },
  ): Record<string, string>;
  /** The caller's headers for the upstream's answer (`parsed` as undici parses them). */
  answerHeaders(parsed: ParsedHeaders, path: string): Record<string, string | string[]>;
  /** The answer for a forward that got no usable head (`error`: why it got none), warned of as the app warns. */
  failure(failure: UpstreamFailure, error?: unknown): PlainAnswer;
  /** The caller left before the upstream answered: logged as the app logs it. */
  callerLeft(path: string): void;
  /** The runtime's forwards counted as its client's are. */
  readonly counts: ForwardCounts | undefined;
  /** Resolves once the audit lines recorded so far are written (null: none waits): no answer leaves ahead of them. */
  written(): Promise<void> | null;
}

export interface ForwardShortcutOptions {
  upstream: UpstreamOptions;
  paths: ForwardedPaths;
  access: ReadAccess;
  warnings: UpstreamWarnings;
  logger: AppLogger;
  audit: SecurityEventSink;
}

/** The shortcut for `upstream`, or undefined when its origin is not plain http (the app forwards then). */
export function createForwardShortcut(options: ForwardShortcutOptions): ForwardShortcut | undefined {
  const { upstream, paths, access, warnings, logger, audit } = options;
  const target = shortcutTarget(upstream);
  if (target === undefined) return undefined;
  const dropped = (path: string) => (line: string) =>
    logger.debug({ path, cookie: line.slice(0, line.indexOf('=')) }, "dropped the upstream's Set-Cookie for our session cookie");
  return {
    target,
    timeoutMs: upstream.timeoutMs,
    counts: upstream.counts,
    takes(method, requestTarget) {
      if ((method !== 'GET' && method !== 'HEAD') || !PLAIN_TARGET.test(requestTarget)) return null;
      const query = requestTarget.indexOf('?');
      const path = query === -1 ? requestTarget : requestTarget.slice(0, query);
      return paths.isForwarded(path) && !mayResolveElsewhere(path) ? path : null;
    },
    admit(request) {
      // A read with a body is the app's: it sends none, and what the upstream makes of the length is not ours to guess.
      if (request.header('content-length') !== undefined || request.header('transfer-encoding') !== undefined) return null;
      return access(request);
    },
    requestHeaders(rawHeaders, admitted, request) {
      const { fields } = rawHeaderFields(rawHeaders);
      const origin = { clientIp: admitted.clientIp, secure: admitted.secureTransport, host: request.host };
      const identity = identityHeaders(upstream, callerIdentity(admitted.principal), request);
      const headers = new PlainHeaders();
      writeUpstreamRequestHeaders(fields, fields.get('connection'), origin, upstream.headers, identity, headers);
      return headers.fields as Record<string, string>;
    },
    answerHeaders(parsed, path) {
      const { fields, setCookies } = parsedHeaderFields(parsed);
      const headers = new PlainHeaders();
      writeUpstreamAnswerHeaders(fields, fields.get('connection'), setCookies, dropped(path), headers);
      return headers.fields;
    },
    failure(failure, error) {
      const fields = {
        upstream_timeout: { timeoutMs: upstream.timeoutMs },
        upstream_refused: {},
        upstream_unavailable: { err: failureCause(error) },
      };
      warnings.warn(failure, fields[failure]);
      return plainAnswer(upstreamFailureFields(failure, upstream.timeoutMs));
    },
    callerLeft: (path) => logger.debug({ path }, 'the caller left before the upstream answered'),
    written: () => audit.written?.() ?? null,
  };
}

/** Where a runtime's own client reaches the upstream: its Unix socket (under the placeholder origin), or an http: origin. */
function shortcutTarget(upstream: UpstreamOptions): ShortcutTarget | undefined {
  const url = new URL(upstream.origin);
  if (upstream.socketPath !== undefined) return { origin: url.origin, socketPath: upstream.socketPath };
  if (url.protocol !== 'http:' || url.pathname.replace(/\/+$/, '') !== '') return undefined;
  return { origin: url.origin };
}
