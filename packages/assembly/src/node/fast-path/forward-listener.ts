import type { ForwardShortcut } from '@webui/gateway';
import type { AdmittedRead } from '@webui/http-hono';
import { Agent, request, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { collectYoungGeneration } from '../runtime/tight-heap.js';
import { plainIncomingReader, writePlainAnswer } from './plain-exchange.js';

/** A Node listener with the pool its forwards use, closed with the server. */
export interface ForwardListener {
  listener: RequestListener;
  /** Ends the pooled upstream connections. */
  close(): void;
}

/**
 * Puts the gateway's forwarded GET and HEAD in front of `app` (docs/performance.md, "The forwarding fast path"): a request the
 * shortcut takes is judged by the app's own steps as plain functions (ForwardShortcut) and sent to the upstream with Node's
 * http client over a keep-alive pool, its answer piped back (bounded by the streams' backpressure). Every other request, and
 * any the shortcut leaves, goes to `app` untouched.
 */
export function withForwardShortcut(shortcut: ForwardShortcut, app: RequestListener): ForwardListener {
  const readPlain = plainIncomingReader();
  // Its timeouts are off, as the app's client's: the head is timed below, and an event stream may idle.
  const agent = new Agent({ keepAlive: true, scheduling: 'lifo' });
  const listener: RequestListener = (incoming, outgoing) => {
    const method = incoming.method ?? '';
    const target = incoming.url ?? '';
    const path = shortcut.takes(method, target);
    if (path === null) return app(incoming, outgoing);
    const plain = readPlain(incoming);
    if (plain === null) return app(incoming, outgoing);
    const { request, host } = plain;
    const admission = shortcut.admit({ ...request, path });
    if (admission === null) return app(incoming, outgoing);
    admission.then(
      (verdict) => {
        if (!verdict.admitted) return writePlainAnswer(outgoing, verdict.answer);
        forward(shortcut, agent, incoming, outgoing, { method, target, path, host }, verdict);
      },
      () => outgoing.destroy(),
    );
  };
  return { listener, close: () => agent.destroy() };
}

interface ForwardedRead {
  method: string;
  target: string;
  path: string;
  host: string;
}

/** Sends an admitted read to the upstream and pipes its answer back, or answers the failure as the app does. */
function forward(
  shortcut: ForwardShortcut,
  agent: Agent,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  read: ForwardedRead,
  admitted: AdmittedRead,
): void {
  const headers = shortcut.requestHeaders(incoming.rawHeaders, admitted, read);
  const sent = request({ ...shortcut.target, agent, method: read.method, path: read.target, headers });
  let settled = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    clearTimeout(timer);
    return true;
  };
  const timer = setTimeout(() => {
    if (!settle()) return;
    sent.destroy();
    shortcut.counts?.unanswered();
    writePlainAnswer(outgoing, shortcut.failure('upstream_timeout'));
  }, shortcut.timeoutMs);
  // The caller leaving aborts the upstream request, as the app's signal does.
  const left = () => {
    if (outgoing.writableFinished || !settle()) return;
    sent.destroy();
    shortcut.counts?.unanswered();
    shortcut.callerLeft(read.path);
  };
  outgoing.once('close', left);
  sent.on('error', (error) => {
    if (!settle()) return;
    shortcut.counts?.unanswered();
    // fetch's shape, which the warning reads the system code from, as the app's client gives it.
    writePlainAnswer(outgoing, shortcut.failure('upstream_unavailable', new TypeError('upstream request failed', { cause: error })));
  });
  sent.on('response', (answer) => {
    if (!settle()) return void answer.destroy();
    shortcut.counts?.answered(answer.statusCode ?? 0);
    if (answer.statusCode === 401) {
      // The upstream refused the gateway's own credential: a 401 here would send the dashboard back to its login.
      answer.resume();
      return writePlainAnswer(outgoing, shortcut.failure('upstream_refused'));
    }
    const answerHeaders = shortcut.answerHeaders(answer.rawHeaders, read.path);
    const writing = shortcut.written();
    if (writing) void writing.then(() => relay(answer, outgoing, answerHeaders));
    else relay(answer, outgoing, answerHeaders);
  });
  sent.end();
}

/** The upstream's answer to the caller: its status and headers, its body streamed with backpressure. */
function relay(answer: IncomingMessage, outgoing: ServerResponse, headers: Record<string, string | string[]>): void {
  if (outgoing.destroyed) return void answer.destroy();
  outgoing.writeHead(answer.statusCode ?? 502, headers);
  // Either side failing ends both: a caller gone destroys the upstream answer (its connection is not pooled again). Not
  // stream.pipeline, whose AbortController and DOMException per call cost more than the rest of the relay.
  answer.on('error', () => outgoing.destroy());
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) answer.destroy();
  });
  // The read buffers of a large body are freed as it goes (collectYoungGeneration), one collection per MiB relayed.
  let relayed = 0;
  answer.on('data', (chunk: Buffer) => {
    relayed += chunk.length;
    if (relayed < COLLECT_EVERY_BYTES) return;
    relayed = 0;
    collectYoungGeneration();
  });
  answer.pipe(outgoing);
}

const COLLECT_EVERY_BYTES = 1024 * 1024;
