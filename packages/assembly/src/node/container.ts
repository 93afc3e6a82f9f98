// tsyringe reads the Reflect metadata API as it loads: the polyfill first.
import 'reflect-metadata';
import {
  composeWebui,
  configuredStorageFactory,
  systemClock,
  systemRandom,
  type ComposedWebui,
  type LoadedSettings,
  type LogDestination,
  type StorageFactory,
} from '../index.js';
import type { Clock, RandomSource } from '@webui/core';
import type { RuntimePort } from '@webui/http-hono';
import { container as rootContainer, instancePerContainerCachingFactory, type DependencyContainer } from 'tsyringe';
import { nodeRuntimePort } from './runtime/node-runtime-port.js';
import { WebSocketChannel } from './websocket-channel.js';

/** What the container holds under each token. */
interface Registry {
  Settings: LoadedSettings;
  Clock: Clock;
  Random: RandomSource;
  LogDestination: LogDestination;
  /** How the storage is made; `configuredStorageFactory` (the data directory or Redis) by default. */
  Storage: StorageFactory;
  HeartbeatMs: number;
  /** How the app reads Node's requests: `nodeRuntimePort`, with its speed-ups. */
  RuntimePort: RuntimePort;
  /** Everything `composeWebui` builds: the log, metrics, storage and core over the parts above. */
  Webui: ComposedWebui;
  Channel: WebSocketChannel;
}

/**
 * Injection tokens of the Node composition root. Ports and parts are registered with values and
 * factories under these tokens, never through decorator metadata: esbuild and vitest do not emit it,
 * and the core stays free of decorators.
 */
export const TOKENS: { readonly [K in keyof Registry]: symbol } = {
  Settings: Symbol('LoadedSettings'),
  Clock: Symbol('Clock'),
  Random: Symbol('RandomSource'),
  LogDestination: Symbol('LogDestination'),
  Storage: Symbol('StorageFactory'),
  HeartbeatMs: Symbol('HeartbeatMs'),
  RuntimePort: Symbol('RuntimePort'),
  Webui: Symbol('ComposedWebui'),
  Channel: Symbol('WebSocketChannel'),
};

const HEARTBEAT_INTERVAL_MS = 30_000;

/** The one place anything is read from the container: a token's part, typed by the registry. */
function part<K extends keyof Registry>(container: DependencyContainer, key: K): Registry[K] {
  return container.resolve<Registry[K]>(TOKENS[key]);
}

/** What the Node server runs: the parts every runtime composes, the Node WebSocket channel and runtime port. */
export interface NodeParts extends ComposedWebui {
  channel: WebSocketChannel;
  runtimePort: RuntimePort;
}

/**
 * The Node composition root: the runtime's parts (settings, Clock, RandomSource, the log's
 * destination, how the storage is made, the channel's heartbeat) go into `composeWebui`, the same
 * function Bun and Deno build through, and the Node WebSocket channel is made over its logger. A test
 * swaps any runtime part by registering another in a child container; singletons are made once per
 * container that resolves them, so a child's replacement reaches them.
 */
export function createContainer(loaded: LoadedSettings): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const single = <T>(factory: (r: DependencyContainer) => T) => ({ useFactory: instancePerContainerCachingFactory<T>(factory) });

  c.register(TOKENS.Settings, { useValue: loaded });
  c.register(TOKENS.Clock, { useValue: systemClock });
  c.register(TOKENS.Random, { useValue: systemRandom });
  c.register(TOKENS.LogDestination, { useValue: process.stdout });
  c.register(TOKENS.Storage, { useValue: configuredStorageFactory });
  c.register(TOKENS.HeartbeatMs, { useValue: HEARTBEAT_INTERVAL_MS });
  c.register(TOKENS.RuntimePort, { useValue: nodeRuntimePort });
  c.register(
    TOKENS.Webui,
    single((r) =>
      composeWebui({
        loaded: part(r, 'Settings'),
        clock: part(r, 'Clock'),
        random: part(r, 'Random'),
        logDestination: part(r, 'LogDestination'),
        storage: part(r, 'Storage'),
      }),
    ),
  );
  c.register(
    TOKENS.Channel,
    single((r) => new WebSocketChannel(part(r, 'Webui').logger.child({ module: 'ws' }), part(r, 'HeartbeatMs'))),
  );
  return c;
}

/** The composed parts alone, without the channel: the CLI's way in. */
export const composedParts = (container: DependencyContainer): ComposedWebui => part(container, 'Webui');

/** Everything `serve` runs, from `container` (createContainer, or a test's child of it). */
export const nodeParts = (container: DependencyContainer): NodeParts => ({
  ...part(container, 'Webui'),
  channel: part(container, 'Channel'),
  runtimePort: part(container, 'RuntimePort'),
});
