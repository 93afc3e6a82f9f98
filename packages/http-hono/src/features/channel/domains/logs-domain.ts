import * as v from 'valibot';
import type { ChannelDomainPort, ChannelRefusal, ChannelSubscribeRequest, ChannelSubscription } from './channel-domain-port.js';
import { LogSubscribeData } from '../hub/envelopes.js';
import type { LogSource } from '../hub/log-source.js';

/** How many recent entries a logs/main subscribe replays (`data.replay`, 0 to 500, default 100), or why the data is refused. */
export function replayOf(data: unknown): { ok: true; replay: number } | ChannelRefusal {
  const parsed = v.safeParse(LogSubscribeData, data);
  if (!parsed.success) return { ok: false, code: 'invalid_request', message: 'data.replay must be an integer from 0 to 500.' };
  return { ok: true, replay: parsed.output.replay };
}

/**
 * The built-in `logs` domain: topic `main` sends a `snapshot` `{entries}` of the last `replay` entries, then an `entry`
 * `{entry}` for each new one. With an upstream the hub serves logs/main through the merged view instead (merged-log-view.ts).
 */
export class LogsDomain implements ChannelDomainPort {
  readonly name = 'logs';
  readonly scope = 'read';
  readonly topics = ['main'] as const;

  constructor(private readonly logs: LogSource) {}

  subscribe({ data }: ChannelSubscribeRequest): ChannelRefusal | ChannelSubscription {
    const replay = replayOf(data);
    if (!replay.ok) return replay;
    return {
      ok: true,
      snapshot: { event: 'snapshot', data: { entries: this.logs.recent(replay.replay) } },
      listen: (send) => this.logs.subscribe((entry) => send('entry', { entry })),
    };
  }
}
