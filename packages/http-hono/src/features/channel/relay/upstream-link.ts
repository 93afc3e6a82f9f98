import type { Principal } from '@webui/core';
import type { AppLogger } from '../../../app-env.js';
import { callerIdentity, type UpstreamChannelOptions } from '../../../upstream/upstream-options.js';
import type { ServerEnvelope } from '../hub/envelopes.js';
import type { UpstreamLink } from '../hub/hub-connection.js';
import type { LogSource } from '../hub/log-source.js';
import { MergedLogView } from './merged-log-view.js';
import type { RelayTimers } from './relay-timers.js';
import { UpstreamRelay } from './upstream-relay.js';

export interface UpstreamLinkOptions {
  channel: UpstreamChannelOptions;
  /** Whose socket this is: the identity the relay presents to the bot. */
  principal: Principal;
  logger: AppLogger;
  timers: RelayTimers;
  /** This server's own log lines, merged with the bot's on logs/main. */
  logs: LogSource;
  now: () => number;
  /** How long a logs/main snapshot waits for the bot's entries (the view's default when absent). */
  waitMs?: number;
  /** Sends the bot's own text, unchanged, to the client. */
  pass(text: string): void;
  send(envelope: ServerEnvelope): void;
  fail(id: string | number | null, code: string, message: string): void;
}

/** One client socket's link to the upstream: the relay to the bot's channel and the logs/main that merges its lines. */
export function openUpstreamLink(options: UpstreamLinkOptions): UpstreamLink {
  const relay: UpstreamRelay = new UpstreamRelay({
    channel: options.channel,
    identity: callerIdentity(options.principal),
    logger: options.logger,
    timers: options.timers,
    hooks: {
      pass: options.pass,
      refuse: options.fail,
      logsEvent: (event, data) => logs.upstreamEvent(event, data),
    },
  });
  const logs: MergedLogView = new MergedLogView({
    logs: options.logs,
    relay,
    send: options.send,
    timers: options.timers,
    now: options.now,
    ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
  });
  return { relay, logs };
}
