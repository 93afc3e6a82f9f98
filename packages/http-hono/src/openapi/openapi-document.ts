import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import * as schemas from '../schemas.js';
import { documentedResponses, type StatusResponse } from './documented-responses.js';
import type { DocumentedOperation } from './documented-operation.js';
import { OPERATIONS } from './operations.js';
import { operationSecurity } from './operation-security.js';

type JsonObject = Record<string, unknown>;

const COMPONENT_PREFIX = '#/components/schemas/';
/** The operation's scope: `read`, `admin` or `access_token` (operation-security.ts); absent on a public operation. */
const SCOPE_EXTENSION = 'x-webui-scope';

/** Every wire shape schemas.ts exports, by its export name: the document's components. */
const NAMED: Record<string, v.GenericSchema> = {};
for (const [name, value] of Object.entries(schemas as Record<string, unknown>)) if (isSchema(value)) NAMED[name] = value;
const NAME_OF = new Map(Object.entries(NAMED).map(([name, schema]) => [schema, name]));

const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  errorMode: 'ignore',
  overrideRef: ({ referenceId }) => `${COMPONENT_PREFIX}${referenceId}`,
};

/**
 * The OpenAPI 3.1 document of the API, generated from the valibot schemas the routes validate and answer with;
 * `operations`: what the features document (FeatureSet.operations), OPERATIONS by default; `mounted`: the operations of a
 * bot's route groups (mountedOperations), after them.
 */
export function buildOpenApiDocument(options: {
  serviceName: string;
  version: string;
  prefix: string;
  operations?: readonly DocumentedOperation[];
  mounted?: readonly DocumentedOperation[];
}): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const operation of [...(options.operations ?? OPERATIONS), ...(options.mounted ?? [])]) {
    const methods = (paths[`${options.prefix}${operation.path}`] ??= {});
    methods[operation.method] = describeOperation(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${options.serviceName} management API`,
      version: options.version,
      description:
        'Token login with an HttpOnly bot_session cookie, token rotation, per-IP bans, first-setup state, one-time WebSocket tickets. ' +
        'Every non-2xx answer is {detail, code}. ' +
        `Each operation's \`${SCOPE_EXTENSION}\` names what it needs: \`read\` (the access token or any API key), \`admin\` ` +
        '(the access token or an admin key) or `access_token` (the token itself); a public operation has none.',
    },
    paths,
    components: {
      schemas: toJsonSchemaDefs(NAMED, CONVERSION),
      securitySchemes: {
        botSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'bot_session',
          description: 'The access token, set by POST /auth/verify (or sent as is by scripts).',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <API key> (`wk_...`, from POST /keys or `webui keys create`) or <access token>. ' +
            'A `read` key may call GET endpoints and /ws-token; an `admin` key everything but /keys changes and token changes. ' +
            'No Origin check, no Set-Cookie.',
        },
        wsTicket: { type: 'apiKey', in: 'query', name: 'token', description: 'A one-time ticket from GET /ws-token.' },
      },
    },
  };
}

function describeOperation(operation: DocumentedOperation): JsonObject {
  const responses: Record<string, JsonObject> = {};
  for (const [status, response] of documentedResponses(operation)) responses[status] = describeResponse(response);
  const { security, scope, sentence } = operationSecurity(operation);
  const described: JsonObject = {
    operationId: operationIdOf(operation.method, operation.path),
    summary: operation.summary,
    description: `${operation.description} ${sentence}`,
    tags: [operation.tag ?? operation.path.split('/')[1] ?? 'api'],
    security,
    ...(scope === undefined ? {} : { [SCOPE_EXTENSION]: scope }),
    responses,
  };
  if (operation.pathParameters) {
    described.parameters = Object.entries(operation.pathParameters).map(([name, description]) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string' },
    }));
  }
  if (operation.requestBody) {
    described.requestBody = { required: true, content: { 'application/json': { schema: jsonSchemaOf(operation.requestBody) } } };
  }
  return described;
}

function describeResponse(response: StatusResponse): JsonObject {
  const described: JsonObject = { description: response.description };
  const [only, ...more] = response.schemas;
  if (only) {
    const schema = more.length === 0 ? jsonSchemaOf(only) : { anyOf: response.schemas.map(jsonSchemaOf) };
    described.content = { [response.mediaType]: { schema } };
  }
  const headers: Record<string, JsonObject> = {};
  if (response.retryAfter) headers['Retry-After'] = { description: 'Seconds to wait.', schema: { type: 'integer' } };
  for (const [name, header] of Object.entries(response.headers)) {
    const schema = jsonSchemaOf(header.schema);
    headers[name] = { ...(header.required ? { required: true } : {}), schema };
  }
  if (Object.keys(headers).length > 0) described.headers = headers;
  return described;
}

/** A named shape as a reference to its component; any other converted in place, its named parts referenced. */
function jsonSchemaOf(schema: v.GenericSchema): JsonObject {
  const name = NAME_OF.get(schema);
  if (name !== undefined) return { $ref: `${COMPONENT_PREFIX}${name}` };
  const { $schema: _dialect, $defs: _defs, ...rest } = toJsonSchema(schema, { ...CONVERSION, definitions: NAMED }) as JsonObject;
  return rest;
}

function isSchema(value: unknown): value is v.GenericSchema {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'schema';
}

/** `get` and `/keys/{name}` make `getKeysName`: the path's words in camel case, its separators and braces left out. */
export function operationIdOf(method: string, path: string): string {
  const words = path.split(/[^a-zA-Z0-9]+/).filter((word) => word !== '');
  return method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}
