import type { AppLogger } from '@webui/http-hono';
import { callerIdentity, type UpstreamChannelOptions } from '../upstream-options.js';
import type { ChannelRelay, RelayEnds, RelayLink } from '@webui/http-hono';
import { MergedLogView } from './merged-log-view.js';
import { SYSTEM_TIMERS, type RelayTimers } from './relay-timers.js';
import { UpstreamRelay } from './upstream-relay.js';

export interface UpstreamChannelRelayOptions {
  channel: UpstreamChannelOptions;
  logger: AppLogger;
  /** What the relay's back-off and the merged log view wait with; tests pass a fake clock. */
  timers?: RelayTimers;
  /** How long a logs/main snapshot waits for the bot's entries before it goes out with ours only (the view's 2 s when absent). */
  waitMs?: number;
}

/** The hub's relay to the bot's own channel (issue 33): each client socket's link relays its domains and merges logs/main. */
export function upstreamChannelRelay(options: UpstreamChannelRelayOptions): ChannelRelay {
  return { open: (ends) => openUpstreamLink(options, ends) };
}

/** One client socket's link to the upstream: the relay to the bot's channel and the logs/main that merges its lines. */
function openUpstreamLink(options: UpstreamChannelRelayOptions, ends: RelayEnds): RelayLink {
  const timers = options.timers ?? SYSTEM_TIMERS;
  const relay: UpstreamRelay = new UpstreamRelay({
    channel: options.channel,
    identity: callerIdentity(ends.principal),
    logger: options.logger,
    timers,
    hooks: {
      pass: ends.pass,
      refuse: ends.fail,
      logsEvent: (event, data) => logs.upstreamEvent(event, data),
    },
  });
  const logs: MergedLogView = new MergedLogView({
    logs: ends.logs,
    relay,
    send: ends.send,
    timers,
    now: ends.now,
    ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
  });
  return {
    forward: (message, text) => relay.forward(message, text),
    subscribeLogs: (replay) => logs.subscribe(replay),
    unsubscribeLogs: () => logs.unsubscribe(),
    get logsSubscribed() {
      return logs.subscribed;
    },
    close() {
      logs.close();
      relay.close();
    },
  };
}
