/** One `maisaka_monitor` event as the original stores and replays it: its payload carries `event_id` and `schema_version`. */
export interface MonitorEvent {
  event: string;
  data: Record<string, unknown>;
}

const SCHEMA_VERSION = 1;
const MAX_REPLAY = 10_000;

/**
 * The bot's monitor timeline: recorded events get increasing ids; a subscription replays the latest (or those after
 * `since_event_id`). Transient events (the original's `stage.status`) are sent live only, without an id.
 */
export class MonitorEvents {
  private readonly events: MonitorEvent[] = [];

  record(event: string, data: Record<string, unknown>): MonitorEvent {
    const recorded = { event, data: { ...data, event_id: this.events.length + 1, schema_version: SCHEMA_VERSION } };
    this.events.push(recorded);
    return recorded;
  }

  /** Oldest first: the `limit` after `sinceEventId` when it is above 0, else the latest `limit`. */
  replay(sinceEventId: number, limit: number): MonitorEvent[] {
    const bounded = Math.max(1, Math.min(limit, MAX_REPLAY));
    if (sinceEventId > 0) return this.events.slice(sinceEventId, sinceEventId + bounded);
    return this.events.slice(Math.max(0, this.events.length - bounded));
  }
}
