import type { ServerEnvelope } from '@webui/http-hono';
import type { LogSource } from '@webui/http-hono';
import { botEntriesOf, botEntryOf, mergeByTime, ownEntryOf } from './merged-log-entry.js';
import type { RelayTimers } from './relay-timers.js';
import type { UpstreamRelay } from './upstream-relay.js';

/** How long a snapshot waits for the bot's entries before it goes out with ours only. */
export const UPSTREAM_LOGS_WAIT_MS = 2_000;

export interface MergedLogViewOptions {
  logs: LogSource;
  relay: Pick<UpstreamRelay, 'subscribeOwn' | 'unsubscribeOwn'>;
  send(envelope: ServerEnvelope): void;
  timers: RelayTimers;
  /** Dates the bot's year-less timestamps. */
  now: () => number;
  waitMs?: number;
}

const KEY = 'logs/main';
const TOPIC = { domain: 'logs', topic: 'main' } as const;

/**
 * One client's `logs/main` with an upstream (issue 4 of issue 33): one snapshot of ours and the bot's entries by time,
 * then live entries from both. Ours wait while the snapshot is on its way: it is built when it goes, so it holds them.
 */
export class MergedLogView {
  private phase: 'off' | 'awaiting' | 'live' = 'off';
  private replay = 100;
  private round = 0;
  private timer: unknown = null;
  private stopOwn: (() => void) | null = null;

  constructor(private readonly options: MergedLogViewOptions) {}

  /** Whether the client is subscribed (its snapshot on the way, or live). */
  get subscribed(): boolean {
    return this.phase !== 'off';
  }

  subscribe(replay: number): void {
    this.replay = replay;
    this.stopOwnEntries();
    // The dashboard subscribes twice per reconnect: the snapshot already on its way answers both.
    if (this.phase === 'awaiting') return;
    this.phase = 'awaiting';
    const round = ++this.round;
    this.timer = this.options.timers.setTimeout(() => this.sendSnapshot(round, []), this.options.waitMs ?? UPSTREAM_LOGS_WAIT_MS);
    this.options.relay.subscribeOwn(KEY, { ...TOPIC, data: { replay } }, (ok) => {
      if (!ok) this.sendSnapshot(round, []);
    });
  }

  unsubscribe(): void {
    this.close();
    this.options.relay.unsubscribeOwn(KEY, TOPIC);
  }

  /** The client's socket is gone; the relay closes on its own. */
  close(): void {
    this.phase = 'off';
    this.round++;
    this.clearTimer();
    this.stopOwnEntries();
  }

  /** An event of the upstream's logs domain: its snapshot completes ours, its entries join the live stream. */
  upstreamEvent(event: string, data: unknown): void {
    const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
    if (event === 'snapshot' && this.phase === 'awaiting') {
      this.sendSnapshot(this.round, botEntriesOf(fields['entries']));
      return;
    }
    if (event !== 'entry' || this.phase !== 'live') return;
    const entry = botEntryOf(fields['entry']);
    if (entry) this.options.send({ op: 'event', ...TOPIC, event: 'entry', data: { entry } });
  }

  private sendSnapshot(round: number, bots: ReturnType<typeof botEntriesOf>): void {
    if (round !== this.round || this.phase !== 'awaiting') return;
    this.clearTimer();
    const { logs, send } = this.options;
    const ours = logs.recent(this.replay).map(ownEntryOf);
    send({
      op: 'event',
      ...TOPIC,
      event: 'snapshot',
      data: { entries: mergeByTime(ours, bots.slice(-this.replay), this.replay, this.options.now()) },
    });
    this.phase = 'live';
    this.stopOwn = logs.subscribe((entry) => send({ op: 'event', ...TOPIC, event: 'entry', data: { entry: ownEntryOf(entry) } }));
  }

  private stopOwnEntries(): void {
    this.stopOwn?.();
    this.stopOwn = null;
  }

  private clearTimer(): void {
    if (this.timer !== null) this.options.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
