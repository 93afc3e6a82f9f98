import { isPending } from '@webui/core';
import type { ForwardShortcut, ParsedHeaders } from '@webui/gateway';
import type { AdmittedRead, RefusedRead } from '@webui/http-hono';
import type { RequestListener, ServerResponse } from 'node:http';
import { upstreamAgent } from '@webui/gateway/node';
import type { Dispatcher } from 'undici';
import { collectEveryMiB } from '../runtime/tight-heap.js';
import { plainIncomingReader, writePlainAnswer } from './plain-exchange.js';

/** A Node listener with the pool its forwards use, closed with the server. */
export interface ForwardListener {
  listener: RequestListener;
  /** Ends the pooled upstream connections. */
  close(): void;
}

/**
 * Puts the gateway's forwarded GET and HEAD in front of `app` (docs/performance.md, "The forwarded-read fast path"): a request the
 * shortcut takes is judged by the app's own steps as plain functions (ForwardShortcut) and dispatched to the upstream by
 * undici over a keep-alive pool, the answer written back as it comes (bounded: a full caller pauses the upstream). Every
 * other request, and any the shortcut leaves, goes to `app` untouched.
 */
export function withForwardShortcut(shortcut: ForwardShortcut, app: RequestListener): ForwardListener {
  const readPlain = plainIncomingReader();
  // The read buffers of a large body are freed as it goes: a young-generation collection per MiB relayed.
  const relayed = collectEveryMiB();
  const { origin, socketPath } = shortcut.target;
  // The pool the app's client takes too (the head is timed by Relay).
  const agent = upstreamAgent(socketPath);
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
    const forward = (verdict: AdmittedRead | RefusedRead): void => {
      if (!verdict.admitted) return writePlainAnswer(outgoing, verdict.answer);
      const headers = shortcut.requestHeaders(incoming.rawHeaders, verdict, { method, path, host });
      const relay = new Relay(shortcut, outgoing, path, relayed);
      agent.dispatch({ origin, method: method as Dispatcher.HttpMethod, path: target, headers }, relay);
    };
    // Judged at once when the store answers at once (the JSON file).
    if (!isPending(admission)) return forward(admission);
    admission.then(forward, () => outgoing.destroy());
  };
  return { listener, close: () => void agent.destroy() };
}

/**
 * One forward's answer, from undici's dispatch to the caller: the failure answers and counts as the app's client gives
 * them, the head timed (webui.upstream.timeout), the caller leaving aborting the upstream request, the body written with
 * backpressure.
 */
class Relay implements Dispatcher.DispatchHandler {
  /** Whether the caller's answer is decided: the upstream's head came, or a failure was answered, or the caller left. */
  private settled = false;
  /** The upstream answered 401: its body is read and dropped. */
  private dropping = false;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly shortcut: ForwardShortcut,
    private readonly outgoing: ServerResponse,
    private readonly path: string,
    private readonly relayed: (bytes: number) => void,
  ) {
    this.timer = setTimeout(this.timedOut, shortcut.timeoutMs);
    outgoing.on('close', this.left);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Timed out or left while the request waited for a pooled connection.
    if (this.settled) controller.abort(ABANDONED);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ParsedHeaders): void {
    // An informational head (103) is not the answer: Node's client leaves it out too.
    if (statusCode < 200 || !this.settle()) return;
    const { shortcut, outgoing } = this;
    shortcut.counts?.answered(statusCode);
    if (statusCode === 401) {
      // The upstream refused the gateway's own credential: a 401 here would send the dashboard back to its login.
      this.dropping = true;
      return writePlainAnswer(outgoing, shortcut.failure('upstream_refused'));
    }
    const answerHeaders = shortcut.answerHeaders(headers, this.path);
    const writing = shortcut.written();
    if (writing === null) return void outgoing.writeHead(statusCode, answerHeaders);
    // No answer leaves ahead of the audit lines recorded so far; the body waits with it.
    controller.pause();
    void writing.then(() => {
      if (outgoing.destroyed) return;
      outgoing.writeHead(statusCode, answerHeaders);
      controller.resume();
    });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const { outgoing } = this;
    if (this.dropping || outgoing.destroyed) return;
    if (!outgoing.write(chunk)) {
      controller.pause();
      outgoing.once('drain', () => controller.resume());
    }
    this.relayed(chunk.length);
  }

  onResponseEnd(): void {
    if (!this.dropping) this.outgoing.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const { shortcut, outgoing } = this;
    if (!this.settle()) {
      // After the head, the caller's answer is cut short, as a failed pipe cuts it; an abort of ours is already answered.
      if (error !== ABANDONED) outgoing.destroy();
      return;
    }
    shortcut.counts?.unanswered();
    // fetch's shape, which the warning reads the system code from, as the app's client gives it.
    writePlainAnswer(outgoing, shortcut.failure('upstream_unavailable', new TypeError('upstream request failed', { cause: error })));
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }

  private readonly timedOut = (): void => {
    if (!this.settle()) return;
    this.controller?.abort(ABANDONED);
    this.shortcut.counts?.unanswered();
    writePlainAnswer(this.outgoing, this.shortcut.failure('upstream_timeout'));
  };

  // The caller leaving aborts the upstream request, as the app's signal does.
  private readonly left = (): void => {
    if (this.outgoing.writableFinished) return;
    this.controller?.abort(ABANDONED);
    if (!this.settle()) return;
    this.shortcut.counts?.unanswered();
    this.shortcut.callerLeft(this.path);
  };
}

/** Why this side ended an upstream request: its error is expected, not a failure to answer. */
const ABANDONED = new Error('the forward was abandoned');
