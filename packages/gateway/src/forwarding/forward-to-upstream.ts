import type { SecurityEventSink } from '@webui/core';
import type { Context } from 'hono';
import type { AppLogger, WebuiEnv } from '@webui/http-hono';
import { errorBody } from '@webui/http-hono';
import { isForwardedRead } from '@webui/http-hono';
import { mayResolveElsewhere } from './forwarded-paths.js';
import { upstreamAnswerHeaders } from '../headers/upstream-answer-headers.js';
import { upstreamFailureAnswer, UpstreamWarnings } from './upstream-failure.js';
import { identityHeaders } from '../headers/identity-headers.js';
import { upstreamRequestHeaders } from '../headers/upstream-request-headers.js';
import {
  callerIdentity,
  type CallerIdentity,
  type UpstreamAnswerParts,
  type UpstreamOptions,
  type UpstreamRequestParts,
} from '../upstream-options.js';

export interface ForwarderOptions {
  upstream: UpstreamOptions;
  logger: AppLogger;
  /** Where each forwarded state change is recorded (`upstream_request`). */
  audit: SecurityEventSink;
  /** Monotonic milliseconds, for the once-a-minute warnings. */
  now: () => number;
  /** The once-a-minute warnings, shared with a runtime's fast path; made here when absent. */
  warnings?: UpstreamWarnings;
}

const TIMED_OUT = Symbol('timed out');
// The audit line stays a few hundred bytes whatever path a caller sends.
const MAX_AUDITED_PATH = 512;

/**
 * The last step for a forwarded path (docs/decisions/0028-gateway-forwarding-rules.md, Upstream request/answer/Failures): the request goes to the upstream through
 * the transport, its body streamed, its headers rewritten; the answer comes back streamed. The timeout
 * covers the answer's head only; an aborted caller aborts the upstream request. Every state change (all but GET and HEAD)
 * is audited. A path the upstream could read as another is refused first.
 */
export function forwardToUpstream(options: ForwarderOptions): (c: Context<WebuiEnv>) => Promise<Response> {
  const { upstream, logger, audit } = options;
  const origin = upstream.origin.replace(/\/+$/, '');
  const warnings = options.warnings ?? new UpstreamWarnings(logger, options.now);

  return async (c) => {
    if (mayResolveElsewhere(c.req.path)) return unplainPath(c);
    const url = new URL(c.req.url);
    const identity = callerIdentity(c.get('principal'));
    const answer = await upstreamAnswer(c, `${origin}${url.pathname}${url.search}`, url.pathname, identity);
    if (!isForwardedRead(c.req.method)) {
      const path = url.pathname.length > MAX_AUDITED_PATH ? `${url.pathname.slice(0, MAX_AUDITED_PATH)}…` : url.pathname;
      const { principal } = identity;
      audit.record({
        event: 'upstream_request',
        address: c.get('clientIp'),
        via: 'api',
        principal,
        method: c.req.method,
        path,
        status: answer.status,
      });
    }
    return answer;
  };

  async function upstreamAnswer(c: Context<WebuiEnv>, target: string, path: string, identity: CallerIdentity): Promise<Response> {
    const raw = c.req.raw;
    // One signal for both ends: the timeout, or the caller leaving (which also cancels a body still streaming). Not
    // AbortSignal.any, whose dependent signals Node 20 keeps alive: garbage collection took most of a forward's time.
    const abort = new AbortController();
    raw.signal.addEventListener('abort', () => abort.abort(), { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const headers = upstreamRequestHeaders(
        raw.headers,
        { clientIp: c.get('clientIp'), secure: c.get('secureTransport'), host: raw.headers.get('host') ?? undefined },
        upstream.headers,
        identityHeaders(upstream, identity, { method: raw.method, path }),
      );
      const timedOut = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), upstream.timeoutMs)));
      const hasBody = raw.body !== null && raw.method !== 'GET' && raw.method !== 'HEAD';
      const parts = { url: target, method: raw.method, headers, body: hasBody ? raw.body : null, signal: abort.signal };
      const sent: Promise<UpstreamAnswerParts> = upstream.send ? upstream.send(parts) : upstream.transport(webRequestOf(parts));
      const head = await Promise.race([sent, timedOut]);
      if (head === TIMED_OUT) {
        abort.abort();
        warnings.warn('upstream_timeout', { timeoutMs: upstream.timeoutMs });
        return upstreamFailureAnswer(c, 'upstream_timeout', upstream.timeoutMs);
      }
      if (head.status === 401) {
        // The upstream refused the gateway's own credential: a 401 here would send the dashboard back to its login.
        if (head.body instanceof ReadableStream) void head.body.cancel().catch(() => undefined);
        warnings.warn('upstream_refused');
        return upstreamFailureAnswer(c, 'upstream_refused', upstream.timeoutMs);
      }
      const answerHeaders = upstreamAnswerHeaders(head.headers, (line) =>
        logger.debug(
          { path: c.req.path, cookie: line.slice(0, line.indexOf('=')) },
          "dropped the upstream's Set-Cookie for our session cookie",
        ),
      );
      return new Response(head.body, { status: head.status, statusText: head.statusText, headers: answerHeaders });
    } catch (error) {
      if (raw.signal.aborted) logger.debug({ path: c.req.path }, 'the caller left before the upstream answered');
      else warnings.warn('upstream_unavailable', { err: failureCause(error) });
      return upstreamFailureAnswer(c, 'upstream_unavailable', upstream.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** 400 for a path the upstream could read as another (mayResolveElsewhere): nothing is sent, nothing audited. */
function unplainPath(c: Context<WebuiEnv>): Response {
  return errorBody(
    c,
    400,
    'invalid_path',
    'The path holds an encoded separator or NUL (%2F, %5C, %00) or a dot segment, which the upstream could read as another path.',
  );
}

/** The parts as one web Request (hono/proxy built two, and two Responses on the way back). */
function webRequestOf(parts: UpstreamRequestParts): Request {
  const { url, body, ...init } = parts;
  return new Request(url, { ...init, redirect: 'manual', ...(body === null ? {} : { body, duplex: 'half' }) } as RequestInit);
}

/** What went wrong reaching the upstream, for the log: the error's name and system code, never its URL or headers. */
export function failureCause(error: unknown): { name: string; code?: string } {
  if (!(error instanceof Error)) return { name: typeof error };
  // Read as a plain field: the setup page's type check targets a library without Error.cause.
  const cause = (error as { cause?: unknown }).cause;
  const code = cause !== null && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  return code === undefined ? { name: error.name } : { name: error.name, code };
}
