import { ErrorBody, TooManyAttemptsBody } from '../../schemas.js';
import { banned, type Operation } from '../../openapi/documented-operation.js';

const WS_DESCRIPTION = [
  'Upgrades to a WebSocket with ?token=<ticket>.',
  'Server frames (ServerEnvelope): {op:"event",domain,event,topic?,data}, {op:"response",id,ok,data?|error}, {op:"pong",ts}.',
  'Client frames (ClientMessage): {op:"ping"}, {op:"subscribe"|"unsubscribe",id,domain,topic,data?},',
  '{op:"call",id,domain,method,session?,data?}.',
  'With webui.upstream, every domain but logs, security and system (chat, maisaka_monitor, memory, plugin_progress, ...) is',
  "relayed to the bot's own channel unchanged, and logs/main merges the bot's lines with this server's.",
  'Topics logs/main (a snapshot event {entries:[...]}, then entry events {entry}; an entry is a LogEntry:',
  '{id: string, unique and increasing within a run, timestamp: ISO 8601, level: DEBUG|INFO|WARNING|ERROR|CRITICAL, module, message})',
  'and plugin_progress/main (a snapshot event, then update events, each {progress: one PluginProgress object',
  '{operation, stage, progress, message, error, plugin_id, total_plugins, loaded_plugins}}, idle when nothing runs).',
  'Closed with 4001 when the access token changes or the API key that opened it is revoked.',
].join(' ');

/** The channel's handshake, GET /ws. */
export const CHANNEL_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/ws',
    summary: 'The unified WebSocket channel',
    description: WS_DESCRIPTION,
    access: 'ticket',
    responses: {
      101: { description: 'Switching protocols.' },
      400: {
        description:
          'A WebSocket handshake with a malformed Sec-WebSocket-Key or Sec-WebSocket-Protocol, or more than one token parameter ' +
          '(`duplicate_credentials`, counted as one failed attempt); the ticket is not spent.',
        schema: ErrorBody,
      },
      401: { description: 'Missing, unknown, expired, spent or revoked ticket; no upgrade.', schema: ErrorBody },
      403: { description: 'An Origin that is not allowed; the ticket is not spent.', schema: ErrorBody },
      426: {
        description:
          'Not a WebSocket upgrade (Upgrade other than websocket, no Connection: Upgrade) or a Sec-WebSocket-Version other than 13; ' +
          'the ticket is not spent.',
        schema: ErrorBody,
      },
      429: {
        description: 'Too many open WebSockets, or (for more than one token parameter) this address is banned.',
        schema: TooManyAttemptsBody,
        retryAfter: true,
      },
    },
  },
];
