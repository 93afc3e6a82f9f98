import { errorMessage } from '@webui/core/adapter';
import type { HandlerLog } from '../../../mount/handler-log.js';
import type { AppLogger } from '../../../app-env.js';
import type { ChannelDomainPort, ChannelEventOptions, ChannelRefusal, ChannelSubscription } from './channel-domain-port.js';
import { coversScope, insufficientScope } from './channel-scope.js';
import type { ClientMessage, ServerEnvelope } from '../hub/envelopes.js';
import { LOGS_MAIN, type Connection } from '../hub/hub-connection.js';
import { HUB_DOMAINS } from '../hub/channel-relay.js';

/** How the hub answers on one connection; `isOpen` is false once it was closed, refused or dropped. */
export interface HubReplies {
  send(connection: Connection, envelope: ServerEnvelope): void;
  fail(connection: Connection, id: string | number | null, code: string, message: string): void;
  isOpen(connection: Connection): boolean;
  /** With an upstream: logs/main answered with the bot's entries merged in. */
  subscribeMergedLogs?(connection: Connection, id: string | number, data: unknown): void;
}

/** A client's subscribes, unsubscribes and calls on the hub's own domains (relayed ones are the upstream's). */
export class DomainRequests {
  constructor(
    private readonly domains: ReadonlyMap<string, ChannelDomainPort>,
    private readonly replies: HubReplies,
    private readonly logger: AppLogger,
    /** What a call's handler gets as its `log`. */
    private readonly handlerLog: HandlerLog,
  ) {}

  subscribe(connection: Connection, message: Extract<ClientMessage, { op: 'subscribe' }>): void {
    const { id, domain: name, topic } = message;
    const key = `${name}/${topic}`;
    const domain = this.domains.get(name);
    if (!domain || (domain.topics !== undefined && !domain.topics.includes(topic)))
      return this.replies.fail(
        connection,
        id,
        'unknown_topic',
        `No topic ${JSON.stringify(key).slice(0, 100)}; available: ${this.availableTopics()}.`,
      );
    if (!coversScope(connection.principal, domain.scope))
      return this.refuse(connection, id, insufficientScope(`The "${name}" domain`, domain.scope));
    // With an upstream the snapshot merges the bot's entries, which take a moment to arrive.
    if (key === LOGS_MAIN && this.replies.subscribeMergedLogs) return this.replies.subscribeMergedLogs(connection, id, message.data);
    let subscription: ChannelRefusal | ChannelSubscription;
    try {
      subscription = domain.subscribe({ topic, data: message.data, principal: connection.principal });
    } catch (error) {
      return this.failed(connection, id, `the ${name} domain's subscribe failed`, error);
    }
    if (!subscription.ok) return this.refuse(connection, id, subscription);
    connection.subscriptions.get(key)?.();
    connection.subscriptions.delete(key);
    this.replies.send(connection, { op: 'response', id, ok: true, data: { domain: name, topic } });
    const { snapshot } = subscription;
    if (snapshot) this.sendEvent(connection, name, topic, snapshot.event, snapshot.data);
    connection.subscriptions.set(
      key,
      subscription.listen((event, data, options) => this.sendEvent(connection, name, topic, event, data, options)),
    );
  }

  unsubscribe(connection: Connection, message: Extract<ClientMessage, { op: 'unsubscribe' }>): void {
    const key = `${message.domain}/${message.topic}`;
    if (key === LOGS_MAIN) connection.upstream?.unsubscribeLogs();
    connection.subscriptions.get(key)?.();
    connection.subscriptions.delete(key);
    this.replies.send(connection, { op: 'response', id: message.id, ok: true, data: { domain: message.domain, topic: message.topic } });
  }

  call(connection: Connection, message: Extract<ClientMessage, { op: 'call' }>): void {
    const { id, domain: name, method } = message;
    const domain = this.domains.get(name);
    const quotedName = JSON.stringify(name).slice(0, 100);
    if (!domain?.call)
      return domain || HUB_DOMAINS.has(name)
        ? this.replies.fail(connection, id, 'unknown_method', `The ${quotedName} domain takes no calls.`)
        : this.replies.fail(connection, id, 'unknown_domain', `No domain ${quotedName}.`);
    if (!coversScope(connection.principal, domain.scope))
      return this.refuse(connection, id, insufficientScope(`The "${name}" domain`, domain.scope));
    const answer = (envelope: ServerEnvelope) => {
      if (this.replies.isOpen(connection)) this.replies.send(connection, envelope);
    };
    // The answer comes when the handler settles; whatever it throws or returns, the hub answers once and never rejects.
    void Promise.resolve()
      .then(() => {
        const request = { method, data: message.data, principal: connection.principal, log: this.handlerLog };
        return domain.call?.(message.session === undefined ? request : { ...request, session: message.session });
      })
      .then(
        (result) => {
          if (!result) return;
          answer(result.ok ? { op: 'response', id, ok: true, data: result.data } : refusalEnvelope(id, result));
        },
        (error: unknown) => this.failed(connection, id, `the ${name} domain's call ${JSON.stringify(method).slice(0, 100)} failed`, error),
      )
      .catch((error: unknown) => this.failed(connection, id, `the ${name} domain's answer could not be sent`, error));
  }

  /** Open subscriptions to the hub's own domains, by domain (relayed ones are the bot's to count). */
  counts(connections: Iterable<Connection>): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const name of this.domains.keys()) counts[name] = 0;
    for (const connection of connections) {
      for (const key of connection.subscriptions.keys()) {
        const name = key.slice(0, key.indexOf('/'));
        counts[name] = (counts[name] ?? 0) + 1;
      }
      if (connection.upstream?.logsSubscribed) counts['logs'] = (counts['logs'] ?? 0) + 1;
    }
    return counts;
  }

  refuse(connection: Connection, id: string | number, refusal: ChannelRefusal): void {
    this.replies.send(connection, refusalEnvelope(id, refusal));
  }

  /** A domain threw: logged with why, answered internal_error (when the socket is still there). */
  failed(connection: Connection, id: string | number, what: string, error: unknown): void {
    this.logger.error({ err: errorMessage(error) }, what);
    if (this.replies.isOpen(connection)) this.replies.fail(connection, id, 'internal_error', 'The request could not be handled.');
  }

  /** Sends one event of a domain's topic; an event that cannot be serialised is logged and dropped, never thrown at its publisher. */
  private sendEvent(
    connection: Connection,
    domain: string,
    topic: string,
    event: string,
    data: unknown,
    options?: ChannelEventOptions,
  ): void {
    try {
      const session = options?.session;
      this.replies.send(
        connection,
        session === undefined ? { op: 'event', domain, topic, event, data } : { op: 'event', domain, topic, session, event, data },
      );
    } catch (error) {
      this.logger.error({ domain, topic, event, err: errorMessage(error) }, 'a channel event could not be sent');
    }
  }

  private availableTopics(): string {
    const topics: string[] = [];
    for (const [name, domain] of this.domains) for (const topic of domain.topics ?? []) topics.push(`${name}/${topic}`);
    return topics.join(', ');
  }
}

function refusalEnvelope(id: string | number, refusal: ChannelRefusal): ServerEnvelope {
  return { op: 'response', id, ok: false, error: { code: String(refusal.code), message: String(refusal.message) } };
}
