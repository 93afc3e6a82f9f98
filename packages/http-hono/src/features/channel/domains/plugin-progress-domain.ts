import type { ChannelDomainPort, ChannelSubscription } from './channel-domain-port.js';
import type { PluginProgressBoard } from './plugin-progress-board.js';

/**
 * The built-in `plugin_progress` domain: topic `main` sends a `snapshot` `{progress}` (idle until something is published),
 * then an `update` `{progress}` for each publish on the board. With an upstream it is the bot's, relayed: not registered.
 */
export class PluginProgressDomain implements ChannelDomainPort {
  readonly name = 'plugin_progress';
  readonly scope = 'read';
  readonly topics = ['main'] as const;

  constructor(private readonly board: PluginProgressBoard) {}

  subscribe(): ChannelSubscription {
    return {
      ok: true,
      snapshot: { event: 'snapshot', data: { progress: this.board.snapshot() } },
      listen: (send) => this.board.subscribe((progress) => send('update', { progress })),
    };
  }
}
