import type { ServerEnvelope } from '../features/channel/hub/envelopes.js';
import { WsHub, type WsHubOptions } from '../features/channel/hub/ws-hub.js';
import { RecordingLogger } from './test-app.js';
import { FakeLogs, openFakeSocket } from './ws-doubles.js';

/** The subscribe rate of the caps tests' hubs: three at once, then one a second, four over before the socket closes. */
export const CAPS_RATE = { burst: 3, perSecond: 1, overdraft: 4 };

/**
 * A hub with the caps tests' subscribe rate over fake logs, a recording logger (the one given, when a relay logs to it too)
 * and a time the test moves; `open(session)` connects a fake socket, its opening messages taken, with a way to send.
 */
export function capsHub(options: Partial<Omit<WsHubOptions, 'logger'>> & { logger?: RecordingLogger } = {}) {
  const logs = new FakeLogs();
  const logger = options.logger ?? new RecordingLogger();
  const time = { now: 1_700_000_000_000 };
  let counter = 0;
  const hub = new WsHub({
    logs,
    logger,
    now: () => time.now,
    newConnectionId: () => `conn-${++counter}`,
    caps: { subscribeRate: CAPS_RATE },
    ...options,
  });
  const open = (session = 'session-a') => {
    const { socket, sendJson } = openFakeSocket(hub, session);
    socket.take();
    return { socket, send: sendJson };
  };
  return { hub, logs, logger, time, open };
}

export const subscribeLogs = (id: number | string) => ({ op: 'subscribe', id, domain: 'logs', topic: 'main', data: { replay: 10 } });
export const responses = (sent: ServerEnvelope[]) => sent.filter((envelope) => envelope.op === 'response');
/** The microtask the hub closes a socket in once a publish is over. */
export const afterPublish = () => new Promise<void>((resolve) => queueMicrotask(resolve));
