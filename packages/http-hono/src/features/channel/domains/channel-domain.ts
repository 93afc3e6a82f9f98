import type { Principal } from '@webui/core';
import * as v from 'valibot';
import type { HandlerLog } from '../../../mount/handler-log.js';
import { MountError } from '../../../mount/mount-error.js';
import { ChannelCallError } from './channel-call-error.js';
import type {
  ChannelCallRequest,
  ChannelCallResult,
  ChannelDomainPort,
  ChannelEventOptions,
  ChannelSend,
  ChannelSubscribeRequest,
  ChannelSubscription,
} from './channel-domain-port.js';
import {
  CHANNEL_SCOPES,
  coversScope,
  DEFAULT_CALL_SCOPE,
  DEFAULT_DOMAIN_SCOPE,
  domainShapeProblem,
  insufficientScope,
  type ChannelScope,
} from './channel-scope.js';

export interface ChannelCallContext {
  principal: Principal;
  /** The bot's logger (module `bot`): the log view and the process output. */
  log: HandlerLog;
  /** The call message's `session`, when it has one. */
  session?: string;
}

/** One method of a domain: what it needs, what its data must be, and what answers it. */
export interface ChannelCall<S extends v.GenericSchema = v.GenericSchema> {
  /** Default `admin`: a call changes state, as a POST does; say `read` for one that only reads. */
  scope?: ChannelScope;
  /** The call's `data`, validated before `handle` runs; invalid data is `ok:false invalid_request`. */
  data?: S;
  /** Its result is the answer's `data`; a ChannelCallError is `ok:false` with its code, anything else thrown `internal_error`. */
  handle(data: v.InferOutput<S>, context: ChannelCallContext): unknown;
}

export interface ChannelDomainOptions {
  /** What subscribing (and calling at all) needs; default `read`. */
  scope?: ChannelScope;
  /** Default `['main']`. */
  topics?: readonly string[];
  /** What a new subscriber gets right after the acknowledgement, as event `snapshot`; nothing when it returns undefined. */
  snapshot?(topic: string, principal: Principal): unknown;
  /** The methods a `call` may name: a ChannelCall, or only its handler (scope admin, data unchecked). */
  calls?: Readonly<Record<string, ChannelCall | ChannelCall['handle']>>;
}

/** Declares a call with a data schema, so that `handle` gets the schema's output type. */
export function channelCall<S extends v.GenericSchema>(call: ChannelCall<S> & { data: S }): ChannelCall<S> {
  return call;
}

/**
 * A bot's domain on the unified channel: registered with the hub (`domains`), it answers subscribe (an acknowledgement and an
 * optional snapshot) and call (by method), and `publish` reaches this domain's subscribers of one topic, and no one else.
 */
export class ChannelDomain implements ChannelDomainPort {
  readonly scope: ChannelScope;
  readonly topics: readonly string[];
  private readonly calls: ReadonlyMap<string, ChannelCall>;
  private readonly listeners = new Map<string, Set<ChannelSend>>();

  constructor(
    readonly name: string,
    private readonly options: ChannelDomainOptions = {},
  ) {
    const what = `channel domain ${JSON.stringify(name)}`;
    this.scope = options.scope ?? DEFAULT_DOMAIN_SCOPE;
    this.topics = options.topics ?? ['main'];
    const problem = domainShapeProblem(this.scope, this.topics);
    if (problem !== null) throw new MountError(what, problem);
    const calls = new Map<string, ChannelCall>();
    for (const [method, call] of Object.entries(options.calls ?? {})) {
      const declared: ChannelCall = typeof call === 'function' ? { handle: call } : call;
      if (typeof declared?.handle !== 'function') throw new MountError(what, `call ${JSON.stringify(method)} has no handle function`);
      if (declared.scope !== undefined && !CHANNEL_SCOPES.includes(declared.scope))
        throw new MountError(what, `call ${JSON.stringify(method)}: scope must be 'read' or 'admin'`);
      calls.set(method, declared);
    }
    this.calls = calls;
  }

  /** Called for one of `topics` only: the hub answers unknown_topic to any other. */
  subscribe({ topic, principal }: ChannelSubscribeRequest): ChannelSubscription {
    const snapshot = this.options.snapshot?.(topic, principal);
    return {
      ok: true,
      ...(snapshot === undefined ? {} : { snapshot: { event: 'snapshot', data: snapshot } }),
      listen: (send) => {
        let subscribers = this.listeners.get(topic);
        if (!subscribers) this.listeners.set(topic, (subscribers = new Set()));
        subscribers.add(send);
        return () => {
          subscribers.delete(send);
          if (subscribers.size === 0 && this.listeners.get(topic) === subscribers) this.listeners.delete(topic);
        };
      },
    };
  }

  async call({ method, data, principal, session, log }: ChannelCallRequest): Promise<ChannelCallResult> {
    const call = this.calls.get(method);
    if (!call)
      return { ok: false, code: 'unknown_method', message: `The ${JSON.stringify(this.name)} domain has no method ${quoted(method)}.` };
    const scope = call.scope ?? DEFAULT_CALL_SCOPE;
    if (!coversScope(principal, scope)) return insufficientScope(`Method ${quoted(method)}`, scope);
    let input: unknown = data;
    if (call.data) {
      const parsed = v.safeParse(call.data, data);
      if (!parsed.success) return { ok: false, code: 'invalid_request', message: describeIssue(parsed.issues[0]) };
      input = parsed.output;
    }
    try {
      return { ok: true, data: await call.handle(input, session === undefined ? { principal, log } : { principal, log, session }) };
    } catch (error) {
      if (error instanceof ChannelCallError) return { ok: false, code: error.code, message: error.message };
      // The hub answers internal_error and logs it: a handler's failure never reaches the client's view or the hub's loop.
      throw error;
    }
  }

  /**
   * Sends one event to this domain's subscribers of `topic` (with `options.session`, the chat session it belongs to); a topic
   * the domain does not declare is a programming error.
   */
  publish(topic: string, event: string, data: unknown, options?: ChannelEventOptions): void {
    if (!this.topics.includes(topic))
      throw new RangeError(
        `channel domain ${JSON.stringify(this.name)} has no topic ${JSON.stringify(topic)} (topics: ${this.topics.join(', ')})`,
      );
    for (const send of [...(this.listeners.get(topic) ?? [])]) send(event, data, options);
  }
}

/** A client's string in a message: quoted and cut, since it may be up to 64 KiB. */
function quoted(text: string): string {
  return JSON.stringify(text).slice(0, 100);
}

function describeIssue(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return 'Invalid data.';
  const path = v.getDotPath(issue);
  return `Invalid data${path ? ` at ${path}` : ''}: ${issue.message}.`;
}
