import type { ChannelDomainPort, ChannelSubscription } from './channel-domain-port.js';
import type { SecurityFeed } from './security-feed.js';

/**
 * The built-in `security` domain: topic `main` sends a `snapshot` `{events}` of the recent audit lines, then each new line as
 * an event of its own name (login_failed, ban_started, ...). The feed builds lines only while someone listens.
 */
export class SecurityDomain implements ChannelDomainPort {
  readonly name = 'security';
  readonly scope = 'read';
  readonly topics = ['main'] as const;

  constructor(private readonly feed: SecurityFeed) {}

  subscribe(): ChannelSubscription {
    return {
      ok: true,
      snapshot: { event: 'snapshot', data: { events: this.feed.recent() } },
      listen: (send) => this.feed.subscribe((line) => send(line.event, line)),
    };
  }
}
