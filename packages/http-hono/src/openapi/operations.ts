import {
  BanLiftResponse,
  BanListResponse,
  CreateKeyRequest,
  ErrorBody,
  HealthDegradedBody,
  HealthResponse,
  KeyCreatedResponse,
  KeyListResponse,
  KeyRevokedResponse,
  SetupChangeResponse,
  SetupStatusResponse,
  TooManyAttemptsBody,
  WsTokenAmbiguousBody,
  WsTokenResponse,
  WsTokenTooManyBody,
} from '../schemas.js';
import { AUTH_OPERATIONS } from '../features/auth/auth-operations.js';
import { banned, unauthenticated, type Operation } from './documented-operation.js';

/** The types the package's entry names beside OPERATIONS. */
export type { DocumentedOperation, Operation } from './documented-operation.js';

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

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/health',
    summary: 'Health check',
    description: 'Answers while the backend is online.',
    access: 'public',
    store: false,
    responses: {
      200: { description: 'Online.', schema: HealthResponse },
      503: {
        description: 'The shared state store is unreachable: logins and changes are refused.',
        schema: HealthDegradedBody,
        retryAfter: true,
      },
    },
  },
  ...AUTH_OPERATIONS,
  {
    method: 'get',
    path: '/setup/status',
    summary: 'First-setup state',
    description: 'Whether the setup wizard is still open, and the token source.',
    access: 'session',
    responses: { 200: { description: 'The state.', schema: SetupStatusResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'post',
    path: '/setup/complete',
    summary: 'Mark first setup completed',
    description: 'Writes first_setup_completed = true.',
    access: 'session',
    responses: { 200: { description: 'Completed.', schema: SetupChangeResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'post',
    path: '/setup/reset',
    summary: 'Open first setup again',
    description: 'For migration or debugging.',
    access: 'session',
    responses: { 200: { description: 'Reset.', schema: SetupChangeResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'get',
    path: '/ws-token',
    summary: 'One-time WebSocket ticket',
    description: 'Valid 60 seconds, single use, bound to the session. Without a session it answers 200 with success:false, not 401.',
    access: 'session-or-200',
    responses: {
      200: { description: 'A ticket, or success:false without a session.', schema: WsTokenResponse },
      400: { description: 'More than one credential, with success:false; counted as one failed attempt.', schema: WsTokenAmbiguousBody },
      429: { ...banned, schema: WsTokenTooManyBody },
    },
  },
  {
    method: 'get',
    path: '/security/bans',
    summary: 'Client addresses with counted failures or a ban',
    description:
      'Every client key (an IPv4 address or IPv6 /64) with failed verifications in the 5-minute window or a running ban; banned first.',
    access: 'session',
    responses: { 200: { description: 'The list.', schema: BanListResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'delete',
    path: '/security/bans/{key}',
    pathParameters: {
      key: 'A key as listed, an IP address, a CIDR (all keys inside it), or `all`; percent-encoded (`2001%3Adb8%3A%3A%2F64`).',
    },
    summary: 'Lift bans and clear failures',
    description:
      'Lifts the bans and clears the failure counts of every key the path parameter covers; ' +
      '`lifted` lists them (empty when nothing matched).',
    access: 'session',
    responses: {
      200: { description: 'Lifted.', schema: BanLiftResponse },
      400: { description: 'The key is not `all`, an address, a CIDR or a listed key.', schema: ErrorBody },
      401: unauthenticated,
      403: {
        description:
          'An API key asked to lift its own address (`own_ban`: the path parameter covers it, `all` included); ' +
          'or a read key (`insufficient_scope`), a refused Origin or Host.',
        schema: ErrorBody,
      },
      429: banned,
    },
  },
  {
    method: 'get',
    path: '/keys',
    summary: 'API keys',
    description: 'Every API key with its scope, creation, expiry and last use (written at most once a minute); never the key itself.',
    access: 'session',
    responses: { 200: { description: 'The keys.', schema: KeyListResponse }, 401: unauthenticated, 429: banned },
  },
  {
    method: 'post',
    path: '/keys',
    summary: 'Create an API key',
    description:
      'Creates a key for scripts: `wk_` and 43 URL-safe characters, shown only in this answer and kept hashed. ' +
      'Needs the access token (a cookie session or the token as bearer), not a key. Changing the access token never revokes keys.',
    access: 'session',
    requestBody: CreateKeyRequest,
    responses: {
      200: { description: 'Created; `key` is shown only here.', schema: KeyCreatedResponse },
      400: {
        description: 'A malformed name (`invalid_key_name`) or lifetime (`invalid_expiry`), or a cookie and bearer that differ.',
        schema: ErrorBody,
      },
      401: unauthenticated,
      403: { description: 'An API key cannot create keys (`insufficient_scope`); or a refused Origin or Host.', schema: ErrorBody },
      409: { description: 'The name is taken (`key_name_taken`) or there are 100 keys (`too_many_keys`).', schema: ErrorBody },
      429: banned,
    },
  },
  {
    method: 'delete',
    path: '/keys/{name}',
    pathParameters: { name: 'The name of the key, percent-encoded.' },
    summary: 'Revoke an API key',
    description:
      'Revokes the key at once: its next request is refused and its WebSockets close with 4001. Needs the access token, not a key.',
    access: 'session',
    responses: {
      200: { description: 'Revoked.', schema: KeyRevokedResponse },
      401: unauthenticated,
      403: { description: 'An API key cannot revoke keys (`insufficient_scope`); or a refused Origin or Host.', schema: ErrorBody },
      404: { description: 'No key has this name (`unknown_key`).', schema: ErrorBody },
      429: banned,
    },
  },
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
