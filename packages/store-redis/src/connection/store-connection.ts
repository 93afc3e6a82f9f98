import { nodesOf, type RedisClient } from './redis-client.js';
import type { LuaScript } from '../lua/lua-script.js';
import { StoreUnavailableError } from '@webui/core';
import { ScriptDeadline } from '../lua/script-deadline.js';
import { storeFailure } from './store-unavailable.js';

/**
 * The command connection as the store's parts use it: every failure comes out as StoreUnavailableError
 * or a bug. Its client is attached when the store opens; before that, every call fails as unreachable.
 */
export class StoreConnection {
  private client: RedisClient | null = null;
  /** The last call found Redis unavailable: true from then until a call succeeds, however the socket looks. */
  failing = false;
  /** What every script carries: the store reads Redis's clocks into it before any script runs. */
  readonly deadline = new ScriptDeadline();

  constructor(readonly address: string) {}

  /** Connected, and the last call got through. */
  get answering(): boolean {
    return this.client?.status === 'ready' && !this.failing;
  }

  /** Whether this turn's commands are being held for one write (corkTurn). */
  private corked = false;

  attach(client: RedisClient): void {
    this.client = client;
  }

  async run(script: LuaScript, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return this.send((client) => {
      const deadline = this.deadline.now();
      if (deadline === null) throw new StoreUnavailableError(`Redis at ${this.address} is unavailable: its clock has not been read yet`);
      return script.run(client, keys, args, deadline);
    });
  }

  async send<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    try {
      if (this.client === null) throw new Error('not connected yet');
      if (!this.corked) this.corkTurn(this.client);
      const result = await command(this.client);
      this.failing = false;
      return result;
    } catch (error) {
      const failure = storeFailure(this.address, error);
      // A killed Redis fails calls before its socket's close is noticed: /health must not say healthy meanwhile.
      if (failure instanceof StoreUnavailableError) this.failing = true;
      throw failure;
    }
  }

  /**
   * The commands of one turn of the event loop leave in one write: the first command of a turn corks the socket (each master's,
   * on a cluster) and the turn's check phase (setImmediate) uncorks it. Under load a turn holds many logins' commands, which
   * went out one write (one syscall) each (issue 44). Nothing waits past its own turn, and a command still fails at once on a
   * connection that is down (ioredis refuses it before writing) or that closes meanwhile (its queue fails on close).
   */
  private corkTurn(client: RedisClient): void {
    const streams = nodesOf(client, 'master').map((node) => node.stream);
    for (const stream of streams) stream?.cork();
    this.corked = true;
    setImmediate(() => {
      this.corked = false;
      for (const stream of streams) stream?.uncork();
    });
  }
}
