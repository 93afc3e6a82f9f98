import type { Principal } from '@webui/core';
import type { HandlerLog } from '../../../mount/handler-log.js';
import type { ChannelScope } from './channel-scope.js';

/** A subscribe or call a domain refuses: the client gets `ok:false` with this code and message. */
export interface ChannelRefusal {
  ok: false;
  code: string;
  message: string;
}

/** What an event may carry beside its data: `session`, the chat session it belongs to (the dashboard's chat reads it). */
export interface ChannelEventOptions {
  session?: string;
}

/** Sends one event of the subscribed domain and topic to one socket. */
export type ChannelSend = (event: string, data: unknown, options?: ChannelEventOptions) => void;

export interface ChannelSubscribeRequest {
  topic: string;
  /** The subscribe message's `data`, as the client sent it (undefined when absent). */
  data: unknown;
  principal: Principal;
}

/** A subscribe the domain takes: the hub acknowledges it, sends the snapshot (if any), then listens until unsubscribe or close. */
export interface ChannelSubscription {
  ok: true;
  snapshot?: { event: string; data: unknown };
  /** Starts the live events for one socket; returns what stops them. */
  listen(send: ChannelSend): () => void;
}

export interface ChannelCallRequest {
  method: string;
  /** The call message's `session` (the dashboard's chat names its chat session there), when it has one. */
  session?: string;
  /** The call message's `data`, as the client sent it (undefined when absent). */
  data: unknown;
  principal: Principal;
  /** The bot's logger (module `bot`), for the call's handler. */
  log: HandlerLog;
}

export type ChannelCallResult = { ok: true; data?: unknown } | ChannelRefusal;

/** The port the hub serves a domain through; the built-in logs, plugin_progress and security and a bot's domains implement it alike. */
export interface ChannelDomainPort {
  /** `^[a-z][a-z0-9_]{0,63}$`; `system` is the hub's own. */
  readonly name: string;
  /** What a principal must cover to subscribe and to call; the hub checks it before the domain is asked. */
  readonly scope: ChannelScope;
  /** The topics a subscribe may name; another one is `unknown_topic` from the hub. Without it the domain decides. */
  readonly topics?: readonly string[];
  subscribe(request: ChannelSubscribeRequest): ChannelRefusal | ChannelSubscription;
  /** Without it every call is `unknown_method`. A rejection is answered `internal_error` and logged. */
  call?(request: ChannelCallRequest): Promise<ChannelCallResult>;
}
