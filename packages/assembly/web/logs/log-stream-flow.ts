import { WebuiError, type WebuiChannel, type WebuiClient } from '@webui/client';
import type { LogEntry } from '@webui/http-hono';
import { appendLogRows, showLogState } from './log-view.js';
import { NetworkError } from '../page/page-client.js';

const LOG_REPLAY = 100;
const RECONNECT_DELAY_MS = 3_000;
/** The server closes every socket of an access token that changed (docs/decisions/0013-websocket-channel.md). */
const CLOSE_TOKEN_CHANGED = 4001;

function isLogEntry(value: unknown): value is LogEntry {
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  return ['id', 'timestamp', 'level', 'module', 'message'].every((field) => typeof entry[field] === 'string');
}

/**
 * The live log: the client's channel subscribed to logs/main. The client's channel does not reconnect,
 * so this opens a fresh one (with a fresh ticket) after a drop, for as long as the person is logged in.
 */
export class LogStream {
  private channel: WebuiChannel | null = null;
  /** Whether a channel is open, being opened, or a retry is scheduled. */
  private running = false;
  /** Bumped by stop(): callbacks of an older run do nothing. */
  private generation = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private lastId = '';

  constructor(private readonly client: WebuiClient) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect(this.generation);
  }

  stop(): void {
    this.running = false;
    this.generation += 1;
    clearTimeout(this.retry);
    void this.channel?.close(1000, 'page closed the log');
    this.channel = null;
    showLogState('Disconnected', 'off');
  }

  private async connect(generation: number): Promise<void> {
    showLogState('Connecting…', 'pending');
    let channel: WebuiChannel;
    try {
      channel = await this.client.openChannel();
    } catch (error) {
      return this.failedToOpen(generation, error);
    }
    // Stopped while it was opening: the channel was never handed out, so close it here.
    if (generation !== this.generation) return void channel.close(1000, 'page closed the log');
    this.channel = channel;
    const current = () => generation === this.generation && this.channel === channel;
    showLogState('Live', 'on');
    channel.on('logs', 'snapshot', ({ entries }) => {
      if (current()) this.show(entries);
    });
    // A live line travels as data.entry, as the dashboard reads it.
    channel.on('logs', 'entry', ({ entry }) => {
      if (current()) this.show([entry]);
    });
    void channel.closed.then(({ code }) => {
      if (current()) this.dropped(generation, code);
    });
    channel.subscribe('logs', 'main', { replay: LOG_REPLAY }).then(
      (response) => {
        if (current() && !response.ok) showLogState(`Subscription refused: ${response.error.message}`, 'off');
      },
      // No answer: the channel closed (`closed` above takes it from there) or the server stayed silent.
      () => undefined,
    );
  }

  private failedToOpen(generation: number, error: unknown): void {
    if (generation !== this.generation) return;
    if (error instanceof NetworkError) return this.scheduleRetry(generation, 'Server unreachable');
    if (error instanceof WebuiError) {
      // No session (yet), or a ban: the next login starts the stream again.
      this.running = false;
      showLogState(error.status === 429 ? 'Blocked for now' : 'Not logged in', 'off');
      return;
    }
    // The handshake was refused or system/ready never came: a drop like any other.
    this.scheduleRetry(generation, 'Connection lost');
  }

  private dropped(generation: number, code: number): void {
    this.channel = null;
    // Asking a ticket now would present a dead cookie, which counts as a failed login (docs/decisions/0004-guessing-through-the-cookie.md); the next login starts the stream again.
    if (code === CLOSE_TOKEN_CHANGED) {
      this.running = false;
      showLogState('Access token changed', 'off');
      return;
    }
    this.scheduleRetry(generation, 'Connection lost');
  }

  private scheduleRetry(generation: number, reason: string): void {
    if (generation !== this.generation) return;
    showLogState(`${reason}; retrying…`, 'pending');
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (generation === this.generation) void this.connect(generation);
    }, RECONNECT_DELAY_MS);
  }

  /** Shows the entries not shown yet: a reconnect's snapshot replays lines already on the page. */
  private show(entries: readonly unknown[]): void {
    const fresh = entries.filter(isLogEntry).filter((entry) => entry.id > this.lastId);
    // Ids have a fixed width within a run and start with the run's start time: they compare as strings.
    for (const entry of fresh) if (entry.id > this.lastId) this.lastId = entry.id;
    appendLogRows(fresh);
  }
}
