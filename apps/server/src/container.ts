import {
  banPolicyFrom,
  configuredStorage,
  createLogger,
  LogFeed,
  systemClock,
  systemRandom,
  type LoadedSettings,
  type LogDestination,
  type Storage,
  WebuiMetrics,
} from '@webui/assembly';
import { createCore, type Clock, type RandomSource } from '@webui/core';
import type { Logger } from 'pino';
import { container as rootContainer, instancePerContainerCachingFactory, type DependencyContainer } from 'tsyringe';
import { WebSocketChannel } from './websocket-channel.js';

/**
 * Injection tokens of the Node composition root. Ports and parts are registered with factories under
 * these tokens, never through decorator metadata: esbuild and vitest do not emit it, and the core
 * stays free of decorators.
 */
export const TOKENS = {
  Settings: Symbol('LoadedSettings'),
  Clock: Symbol('Clock'),
  Random: Symbol('RandomSource'),
  Storage: Symbol('Storage'),
  Core: Symbol('Core'),
  LogFeed: Symbol('LogFeed'),
  Logger: Symbol('Logger'),
  LogDestination: Symbol('LogDestination'),
  Channel: Symbol('WebSocketChannel'),
  HeartbeatMs: Symbol('HeartbeatMs'),
  Metrics: Symbol('WebuiMetrics'),
} as const;

const HEARTBEAT_INTERVAL_MS = 30_000;

/**
 * The Node composition root: the core's ports (Clock, RandomSource, and the Store inside Storage), the log, the settings and
 * the Node WebSocket channel. A test swaps any of them by registering another in a child container;
 * singletons are made once per container that resolves them, so a child's replacement reaches them.
 */
export function createContainer(loaded: LoadedSettings): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const single = <T>(factory: (r: DependencyContainer) => T) => ({ useFactory: instancePerContainerCachingFactory<T>(factory) });

  c.register(TOKENS.Settings, { useValue: loaded });
  c.register(TOKENS.Clock, { useValue: systemClock });
  c.register(TOKENS.Random, { useValue: systemRandom });
  c.register(TOKENS.LogDestination, { useValue: process.stdout });
  c.register(TOKENS.HeartbeatMs, { useValue: HEARTBEAT_INTERVAL_MS });
  c.register(
    TOKENS.Metrics,
    single(() => new WebuiMetrics()),
  );
  c.register(
    TOKENS.LogFeed,
    single(() => new LogFeed()),
  );
  c.register(
    TOKENS.Logger,
    single((r) =>
      createLogger(
        loaded.settings.logLevel,
        r.resolve<LogFeed>(TOKENS.LogFeed),
        r.resolve<LogDestination>(TOKENS.LogDestination),
        loaded.settings.logFormat,
      ),
    ),
  );
  // The store `[webui] store` names (data_dir/webui.json or a shared Redis), with the data directory's lock and audit trail.
  c.register(
    TOKENS.Storage,
    single((r) =>
      configuredStorage(loaded, r.resolve<Clock>(TOKENS.Clock), r.resolve<Logger>(TOKENS.Logger), r.resolve<WebuiMetrics>(TOKENS.Metrics)),
    ),
  );
  c.register(
    TOKENS.Core,
    single((r) =>
      createCore({
        store: r.resolve<Storage>(TOKENS.Storage).store,
        clock: r.resolve<Clock>(TOKENS.Clock),
        random: r.resolve<RandomSource>(TOKENS.Random),
        banPolicy: banPolicyFrom(loaded.settings),
      }),
    ),
  );
  c.register(
    TOKENS.Channel,
    single((r) => new WebSocketChannel(r.resolve<Logger>(TOKENS.Logger).child({ module: 'ws' }), r.resolve<number>(TOKENS.HeartbeatMs))),
  );
  return c;
}
