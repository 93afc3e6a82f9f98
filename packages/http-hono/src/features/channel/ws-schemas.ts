import * as v from 'valibot';

// The unified channel's frames (docs/decisions/0013-websocket-channel.md); the hub parses client frames with these, the OpenAPI document lists them all.

const RequestId = v.pipe(v.union([v.string(), v.number()]), v.description('Echoed as sent; the dashboard sends strings.'));

/** Messages a client may send, ping, subscribe, unsubscribe and call; anything else is answered with ok:false. */
export const ClientMessage = v.variant('op', [
  v.looseObject({ op: v.literal('ping') }),
  v.looseObject({ op: v.literal('subscribe'), id: RequestId, domain: v.string(), topic: v.string(), data: v.optional(v.unknown()) }),
  v.looseObject({ op: v.literal('unsubscribe'), id: RequestId, domain: v.string(), topic: v.string() }),
  // Only the bot's own domains take calls (the dashboard's chat): relayed to an upstream, refused without one.
  v.looseObject({
    op: v.literal('call'),
    id: RequestId,
    domain: v.string(),
    method: v.string(),
    session: v.optional(v.string()),
    data: v.optional(v.unknown()),
  }),
]);

/** The data of a logs/main subscribe: how many recent entries the snapshot replays. */
export const LogSubscribeData = v.optional(
  v.looseObject({
    replay: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(500)), 100),
  }),
  {},
);

/** Every frame the server sends. */
export const ServerEnvelope = v.union([
  // `session`: the chat session a chat domain's event belongs to, as the dashboard reads it (docs/dashboard.md §7).
  v.strictObject({
    op: v.literal('event'),
    domain: v.string(),
    event: v.string(),
    topic: v.optional(v.string()),
    session: v.optional(v.string()),
    data: v.unknown(),
  }),
  v.strictObject({ op: v.literal('response'), id: v.nullable(RequestId), ok: v.literal(true), data: v.optional(v.unknown()) }),
  v.strictObject({
    op: v.literal('response'),
    id: v.nullable(RequestId),
    ok: v.literal(false),
    error: v.strictObject({ code: v.string(), message: v.string() }),
  }),
  v.strictObject({ op: v.literal('pong'), ts: v.number() }),
]);

/** One log line: logs/main sends a `snapshot` event `{entries: [...]}`, then `entry` events `{entry}`. */
export const LogEntry = v.strictObject({
  id: v.pipe(v.string(), v.description('Unique and increasing within a run; the same in the snapshot and the live event.')),
  timestamp: v.pipe(v.string(), v.description('ISO 8601.')),
  level: v.picklist(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']),
  module: v.string(),
  message: v.string(),
  // With an upstream the bot's entries carry its display hints (docs/dashboard.md §4).
  moduleDisplayName: v.optional(v.string()),
  moduleColor: v.optional(v.string()),
  moduleBold: v.optional(v.boolean()),
  moduleBackgroundColor: v.optional(v.string()),
});

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** plugin_progress/main sends a `snapshot` event, then `update` events, each `{progress}`; idle when nothing runs. */
export const PluginProgress = v.strictObject({
  operation: v.picklist(['idle', 'fetch', 'install', 'uninstall', 'update']),
  stage: v.picklist(['idle', 'loading', 'success', 'error']),
  progress: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
  message: v.string(),
  error: v.nullable(v.string()),
  plugin_id: v.nullable(v.string()),
  total_plugins: count,
  loaded_plugins: count,
  mirror_id: v.optional(v.string()),
  mirror_name: v.optional(v.string()),
  mirror_index: v.optional(count),
  total_mirrors: v.optional(count),
  attempt: v.optional(count),
  max_attempts: v.optional(count),
});
