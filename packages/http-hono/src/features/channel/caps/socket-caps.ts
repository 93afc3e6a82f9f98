import type { WSContext } from 'hono/ws';
import type { AppLogger } from '../../../app-env.js';
import { RequestRate, SUBSCRIBE_RATE, type Admission, type RequestRateLimits } from './request-rate.js';
import { MAX_BUFFERED_BYTES, webBufferedBytes, type BufferedBytes } from './send-buffer.js';

export const CLOSE_POLICY_VIOLATION = 1008;
export const REQUEST_FLOOD_REASON = 'too many requests';

/** What one socket may cost the server; every field has its default (issue 42). */
export interface SocketCapOptions {
  /** The runtime's measure of a socket's unsent bytes; the web WebSocket's `bufferedAmount` by default. */
  bufferedBytes?: BufferedBytes;
  /** Past it a socket is closed with 1013 (MAX_BUFFERED_BYTES). */
  maxBufferedBytes?: number;
  /** Subscribes and unsubscribes a socket may send (SUBSCRIBE_RATE). */
  subscribeRate?: RequestRateLimits;
}

/** Since the start: sockets closed for a cap, and requests refused rate_limited. The metrics read them. */
export interface SocketCapCounts {
  /** Closed with 1013: more than the cap unsent. */
  sendBufferFull: number;
  /** Closed with 1008: the overdraft of the subscribe rate spent. */
  requestFlood: number;
  /** Subscribes and unsubscribes answered rate_limited. */
  rateLimited: number;
}

/** The hub's caps on one socket's unsent bytes and request rate, with their counts. */
export class SocketCaps {
  readonly counts: SocketCapCounts = { sendBufferFull: 0, requestFlood: 0, rateLimited: 0 };
  readonly rate: RequestRateLimits;
  private readonly bufferedBytes: BufferedBytes;
  private readonly maxBufferedBytes: number;
  private unmeasured = false;

  constructor(
    options: SocketCapOptions,
    private readonly now: () => number,
    private readonly logger: AppLogger,
  ) {
    this.rate = options.subscribeRate ?? SUBSCRIBE_RATE;
    this.bufferedBytes = options.bufferedBytes ?? webBufferedBytes;
    this.maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  }

  /** The error message of a subscribe or unsubscribe refused `rate_limited`. */
  get rateLimitedMessage(): string {
    const { perSecond, burst } = this.rate;
    return `Too many subscribe and unsubscribe requests on this socket: at most ${perSecond} a second after the first ${burst}; wait and try again.`;
  }

  /** A new socket's bucket. */
  requestRate(): RequestRate {
    return new RequestRate(this.rate, this.now);
  }

  /** Takes one subscribe or unsubscribe; a refusal and a flood (which the hub closes) are counted. */
  admit(rate: RequestRate): Admission {
    const admission = rate.take();
    if (admission === 'refused') this.counts.rateLimited++;
    else if (admission === 'flooding') this.counts.requestFlood++;
    return admission;
  }

  /** Whether `socket` holds more than the cap unsent; counted, as the hub closes it. */
  overBuffered(socket: WSContext): boolean {
    const bytes = this.measure(socket);
    if (bytes === undefined) {
      // Said once: without the measure only the request rate bounds what a socket that does not read costs.
      if (!this.unmeasured)
        this.logger.warn({}, 'this runtime does not tell how much a WebSocket holds unsent: the send buffer cap is off');
      this.unmeasured = true;
      return false;
    }
    if (bytes <= this.maxBufferedBytes) return false;
    this.counts.sendBufferFull++;
    return true;
  }

  /** The runtime's measure; one that throws (on a socket its runtime already let go) counts as empty: nothing is thrown at a sender. */
  private measure(socket: WSContext): number | undefined {
    try {
      return this.bufferedBytes(socket);
    } catch {
      return 0;
    }
  }
}
