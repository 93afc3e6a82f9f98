import type { Principal } from '@webui/core';
import type { WSContext } from 'hono/ws';
import type { RequestRate } from '../caps/request-rate.js';
import type { RelayLink } from './channel-relay.js';

/** One client socket of the hub, with what it subscribed to and its link to the upstream. */
export interface Connection {
  id: string;
  /** Who opened it (from its ticket): what it may subscribe to and call; its session is what revocation closes. */
  principal: Principal;
  socket: WSContext;
  /** Unsubscribe functions by "domain/topic". */
  subscriptions: Map<string, () => void>;
  /** With a relay, made on first need: the link to the bot's channel and the merged logs/main. */
  upstream?: RelayLink;
  /** Its subscribes and unsubscribes, against SUBSCRIBE_RATE. */
  requests: RequestRate;
  /** A cap closes it: nothing more is sent or handled while the close waits for the publish under way to end. */
  capped: boolean;
}

export const LOGS_MAIN = 'logs/main';
