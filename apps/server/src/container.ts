import { BanPolicy, RecordEditor, SetupState, TokenService, WsTicketIssuer, type Clock, type RandomSource, type Store } from '@webui/core';
import { JsonFileStore } from '@webui/store-json';
import type { Logger } from 'pino';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { LoadedSettings } from './config/loaded-settings.js';
import { LogFeed } from './logging/log-feed.js';
import { cryptoRandom } from './runtime/crypto-random.js';
import { systemClock } from './runtime/system-clock.js';

/** Injection tokens for what has no class of its own; core classes are their own tokens. */
export const TOKENS = {
  Settings: Symbol('LoadedSettings'),
  Clock: Symbol('Clock'),
  Random: Symbol('RandomSource'),
  Store: Symbol('Store'),
  Logger: Symbol('Logger'),
} as const;

export interface ContainerOverrides {
  clock?: Clock;
  random?: RandomSource;
}

/**
 * Wires the core to its Node adapters. Factories with explicit tokens, never decorator metadata:
 * esbuild and vitest do not emit it, and the core must stay free of decorators.
 */
export function createContainer(loaded: LoadedSettings, logger: Logger, feed: LogFeed, overrides: ContainerOverrides = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const single = <T>(factory: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory<T>(factory) });

  c.register(TOKENS.Settings, { useValue: loaded });
  c.register(TOKENS.Logger, { useValue: logger });
  c.register(LogFeed, { useValue: feed });
  c.register(TOKENS.Clock, { useValue: overrides.clock ?? systemClock });
  c.register(TOKENS.Random, { useValue: overrides.random ?? cryptoRandom });
  c.register(
    JsonFileStore,
    single((r) => {
      const storeLogger = r.resolve<Logger>(TOKENS.Logger).child({ module: 'store' });
      return new JsonFileStore({
        dataDir: loaded.dataDir,
        clock: r.resolve<Clock>(TOKENS.Clock),
        onEvent: (event) => {
          const level = event.kind === 'reloaded' ? 'info' : event.kind === 'insecure-permissions' ? 'warn' : 'error';
          storeLogger[level]({ event }, describeStoreEvent(event.kind));
        },
      });
    }),
  );
  c.register(TOKENS.Store, { useFactory: (r) => r.resolve(JsonFileStore) });
  c.register(RecordEditor, single((r) => new RecordEditor(r.resolve<Store>(TOKENS.Store))));
  c.register(TokenService, single((r) => new TokenService(r.resolve<Store>(TOKENS.Store), r.resolve(RecordEditor), r.resolve<RandomSource>(TOKENS.Random))));
  c.register(SetupState, single((r) => new SetupState(r.resolve(RecordEditor))));
  c.register(BanPolicy, single((r) => new BanPolicy(r.resolve<Store>(TOKENS.Store), r.resolve<Clock>(TOKENS.Clock))));
  c.register(
    WsTicketIssuer,
    single((r) => new WsTicketIssuer(r.resolve<Store>(TOKENS.Store), r.resolve(TokenService), r.resolve<Clock>(TOKENS.Clock), r.resolve<RandomSource>(TOKENS.Random))),
  );
  return c;
}

function describeStoreEvent(kind: string): string {
  switch (kind) {
    case 'corrupt-file-moved':
      return 'webui.json was not valid; it was kept aside and a new temporary token was made';
    case 'insecure-permissions':
      return 'the data directory or webui.json is readable by others';
    case 'reloaded':
      return 'webui.json was edited by hand; the change is in force';
    case 'reload-refused':
      return 'a hand edit of webui.json is not valid; the last good state stays in force';
    default:
      return 'a webui.json change listener failed';
  }
}
