import type { Principal } from '@webui/core';
import type { ServerEnvelope } from './envelopes.js';
import type { LogSource } from './log-source.js';

export type RequestId = string | number;

/** The domains the hub serves itself when it has a relay; every other one is relayed. */
export const HUB_DOMAINS: ReadonlySet<string> = new Set(['logs', 'security', 'system']);

/** A client message the hub relays, as it parsed it; the relay sends the client's own text. */
export type RelayedMessage =
  { op: 'subscribe' | 'unsubscribe'; id: RequestId; domain: string; topic: string } | { op: 'call'; id: RequestId; domain: string };

/** What one client socket gives its relay link: who it is, this server's log lines, and how to reach it. */
export interface RelayEnds {
  /** Whose socket this is: the identity the relay presents to the bot. */
  principal: Principal;
  /** This server's own log lines, merged with the bot's on logs/main. */
  logs: LogSource;
  now: () => number;
  /** Sends the bot's own text, unchanged, to the client. */
  pass(text: string): void;
  send(envelope: ServerEnvelope): void;
  fail(id: RequestId | null, code: string, message: string): void;
}

/** One client socket's link to the bot's channel: the relayed domains and the merged logs/main. */
export interface RelayLink {
  forward(message: RelayedMessage, text: string): void;
  /** logs/main with the bot's entries merged into ours, after a snapshot of `replay` entries. */
  subscribeLogs(replay: number): void;
  unsubscribeLogs(): void;
  /** Whether the client holds the merged logs/main (the hub counts it among its own subscriptions). */
  readonly logsSubscribed: boolean;
  /** The client socket is gone: the link's sockets and timers go with it. */
  close(): void;
}

/**
 * The hub's port to a relay (issue 33): with one, every domain the hub does not serve itself goes to the bot's channel and
 * logs/main merges the bot's lines. The gateway feature provides it; the hub imports nothing of the relay.
 */
export interface ChannelRelay {
  /** Opens one client socket's link, on its first relayed message or logs/main subscribe. */
  open(ends: RelayEnds): RelayLink;
}
