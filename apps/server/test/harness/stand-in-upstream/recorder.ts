import type { IncomingMessage } from 'node:http';

/** One request as the stand-in upstream received it: what a test reads to prove what arrived and what never did. */
export interface RecordedRequest {
  /** Arrival order, from 1. */
  seq: number;
  method: string;
  /** Path and query exactly as received. */
  url: string;
  /** The path without the query. */
  path: string;
  /** Every header, names lower-case; repeated headers joined as Node joins them (Cookie with `; `, others with `, `). */
  headers: Record<string, string>;
  /** Body bytes received so far: it grows while a body streams in. */
  bodyBytes: number;
  /** `performance.now()` when the first body chunk arrived; undefined until one has. */
  firstChunkAt: number | undefined;
  /** `performance.now()` when the body ended; undefined while it is still streaming. */
  bodyEndedAt: number | undefined;
  /** The status the stand-in answered; undefined until it has answered (101 for an accepted WebSocket). */
  status: number | undefined;
  /** Body bytes the stand-in has written so far (a download grows while the reader reads). */
  responseBytes: number;
  /** A WebSocket handshake rather than a plain request. */
  upgrade: boolean;
}

/** One message a channel connection sent the stand-in: `message` is the parsed JSON, or undefined when `raw` was not JSON. */
export interface ChannelMessage {
  /** The stand-in's id of the connection (the `connection_id` of its `system`/`ready` event). */
  connection: string;
  raw: string;
  message: unknown;
}

/**
 * What the stand-in saw, and a way to wait for it: every change wakes the waiters, so a test awaits an event (a chunk
 * arrived, a socket closed) instead of polling or sleeping.
 */
export class Recorder {
  readonly received: RecordedRequest[] = [];
  readonly channelMessages: ChannelMessage[] = [];
  private readonly waiters = new Set<() => void>();

  record(request: IncomingMessage, upgrade: boolean): RecordedRequest {
    const url = request.url ?? '/';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const recorded: RecordedRequest = {
      seq: this.received.length + 1,
      method: request.method ?? 'GET',
      url,
      path: url.split('?')[0] ?? url,
      headers,
      bodyBytes: 0,
      firstChunkAt: undefined,
      bodyEndedAt: undefined,
      status: undefined,
      responseBytes: 0,
      upgrade,
    };
    this.received.push(recorded);
    this.changed();
    return recorded;
  }

  recordChannelMessage(connection: string, raw: string, message: unknown): void {
    this.channelMessages.push({ connection, raw, message });
    this.changed();
  }

  /** Wakes every waiter to look again. */
  changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Resolves with the first truthy value `check` returns, looked at now and after every change; rejects after `timeoutMs`. */
  waitFor<T>(check: () => T | undefined | null | false, timeoutMs = 5_000, what = 'condition'): Promise<T> {
    return new Promise((resolve, reject) => {
      const look = () => {
        let value: T | undefined | null | false;
        try {
          value = check();
        } catch (error) {
          finish();
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (value === undefined || value === null || value === false) return;
        finish();
        resolve(value);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`stand-in upstream: ${what} not seen within ${timeoutMs} ms`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(look);
      };
      this.waiters.add(look);
      look();
    });
  }
}
