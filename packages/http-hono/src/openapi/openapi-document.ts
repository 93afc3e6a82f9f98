import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ErrorBody } from '../schemas.js';
import { OPERATIONS, type DocumentedResponse, type Operation } from './operations.js';

type JsonObject = Record<string, unknown>;

const EDGE_RESPONSES: Record<number, DocumentedResponse> = {
  403: { description: 'The client address is not in webui.allowed_ips, the Host is not served, or the Origin is not allowed.', schema: ErrorBody },
};
const SESSION_RESPONSES: Record<number, DocumentedResponse> = {
  400: { description: 'More than one credential: two bot_session cookies or two Authorization headers (`duplicate_credentials`), or a cookie and a bearer that differ (`conflicting_credentials`). Counted as one failed attempt.', schema: ErrorBody },
  403: { description: 'Also: an API key whose scope does not cover this operation (`insufficient_scope`), or a refused Origin or Host.', schema: ErrorBody },
};
const BODY_RESPONSES: Record<number, DocumentedResponse> = {
  400: { description: 'The body is not valid JSON.', schema: ErrorBody },
  413: { description: 'The body is larger than 16 KiB.', schema: ErrorBody },
  415: { description: 'The body is not sent as application/json (`unsupported_media_type`), or declares a charset other than utf-8 (`unsupported_charset`).', schema: ErrorBody },
  422: { description: 'A field is missing or of the wrong type.', schema: ErrorBody },
};

/** The OpenAPI 3.1 document of the API, generated from the valibot schemas the routes validate with. */
export function buildOpenApiDocument(options: { serviceName: string; version: string; prefix: string }): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const operation of OPERATIONS) {
    paths[`${options.prefix}${operation.path}`] ??= {};
    (paths[`${options.prefix}${operation.path}`] as Record<string, JsonObject>)[operation.method] = describeOperation(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${options.serviceName} management API`,
      version: options.version,
      description:
        'Token login with an HttpOnly bot_session cookie, token rotation, per-IP bans, first-setup state, one-time WebSocket tickets. Every non-2xx answer is {detail, code}.',
    },
    paths,
    components: {
      securitySchemes: {
        botSession: { type: 'apiKey', in: 'cookie', name: 'bot_session', description: 'The access token, set by POST /auth/verify (or sent as is by scripts).' },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <API key> (`wk_...`, from POST /keys or `webui keys create`) or <access token>. A `read` key may call GET endpoints and /ws-token; an `admin` key everything but /keys changes and token changes. No Origin check, no Set-Cookie.',
        },
        wsTicket: { type: 'apiKey', in: 'query', name: 'token', description: 'A one-time ticket from GET /ws-token.' },
      },
    },
  };
}

function describeOperation(operation: Operation): JsonObject {
  const responses: Record<string, JsonObject> = {};
  const isSession = operation.access === 'session' || operation.access === 'session-or-200';
  const all = {
    ...operation.responses,
    ...(isSession ? withoutOverride(SESSION_RESPONSES, operation.responses) : EDGE_RESPONSES),
    ...(operation.requestBody ? withoutOverride(BODY_RESPONSES, operation.responses) : {}),
  };
  for (const [status, response] of Object.entries(all).sort(([a], [b]) => Number(a) - Number(b))) {
    responses[status] = describeResponse(response);
  }
  const described: JsonObject = {
    operationId: `${operation.method}${operation.path.replace(/[^a-zA-Z0-9]+(.)/g, (_match, next: string) => next.toUpperCase())}`,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.path.split('/')[1] ?? 'api'],
    security: isSession ? [{ botSession: [] }, { bearerAuth: [] }] : operation.access === 'ticket' ? [{ wsTicket: [] }] : [],
    responses,
  };
  if (operation.pathParameters) {
    described.parameters = Object.entries(operation.pathParameters).map(([name, description]) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } }));
  }
  if (operation.requestBody) {
    described.requestBody = { required: true, content: { 'application/json': { schema: jsonSchemaOf(operation.requestBody) } } };
  }
  return described;
}

function describeResponse(response: DocumentedResponse): JsonObject {
  const described: JsonObject = { description: response.description };
  if (response.schema) described.content = { 'application/json': { schema: jsonSchemaOf(response.schema) } };
  if (response.retryAfter) described.headers = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } };
  return described;
}

function jsonSchemaOf(schema: v.GenericSchema): JsonObject {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as JsonObject;
  return rest;
}

function withoutOverride(defaults: Record<number, DocumentedResponse>, own: Record<number, DocumentedResponse>): Record<number, DocumentedResponse> {
  return Object.fromEntries(Object.entries(defaults).filter(([status]) => !(Number(status) in own)));
}
