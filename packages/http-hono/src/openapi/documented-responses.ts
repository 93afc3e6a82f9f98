import * as v from 'valibot';
import { ErrorBody, InvalidRequestBody, StoreUnavailableBody } from '../schemas.js';
import type { DocumentedHeader, DocumentedOperation, DocumentedResponse } from './documented-operation.js';

/** One documented status of an operation: every body it can carry, whichever step answered. */
export interface StatusResponse {
  description: string;
  schemas: v.GenericSchema[];
  /** application/json unless the operation's own answer says otherwise. */
  mediaType: string;
  retryAfter: boolean;
  headers: Record<string, DocumentedHeader>;
}

const EDGE_RESPONSES: Record<number, DocumentedResponse> = {
  403: {
    description: 'The client address is not in webui.allowed_ips, the Host is not served, or the Origin is not allowed.',
    schema: ErrorBody,
  },
};
const SESSION_RESPONSES: Record<number, DocumentedResponse> = {
  400: {
    description:
      'More than one credential: two bot_session cookies or two Authorization headers (`duplicate_credentials`), ' +
      'or a cookie and a bearer that differ (`conflicting_credentials`). Counted as one failed attempt.',
    schema: ErrorBody,
  },
  403: {
    description: 'Also: an API key whose scope does not cover this operation (`insufficient_scope`), or a refused Origin or Host.',
    schema: ErrorBody,
  },
};
const BODY_RESPONSES: Record<number, DocumentedResponse> = {
  400: { description: 'The body is not valid JSON.', schema: ErrorBody },
  413: { description: 'The body is larger than 16 KiB.', schema: ErrorBody },
  415: {
    description:
      'The body is not sent as application/json (`unsupported_media_type`), ' +
      'or declares a charset other than utf-8 (`unsupported_charset`).',
    schema: ErrorBody,
  },
  422: {
    description: 'The body does not fit its schema (`invalid_body`): `problems` lists each problem with its path, `detail` names them.',
    schema: InvalidRequestBody,
  },
};
const STORE_RESPONSES: Record<number, DocumentedResponse> = {
  503: {
    description: 'The shared state store is unreachable; nothing was decided, counted or changed.',
    schema: StoreUnavailableBody,
    retryAfter: true,
  },
};

/**
 * Every status an operation answers with: its own, then those of the steps before it (the edge or the session
 * guard, the body reader, the store). Its own description wins; the bodies of all the steps that share a status are kept.
 */
export function documentedResponses(operation: DocumentedOperation): Map<number, StatusResponse> {
  const isSession = operation.access === 'session' || operation.access === 'session-or-200';
  const sources = [
    operation.responses,
    isSession ? SESSION_RESPONSES : EDGE_RESPONSES,
    operation.requestBody ? BODY_RESPONSES : {},
    operation.store === false ? {} : STORE_RESPONSES,
  ];
  const merged = new Map<number, StatusResponse>();
  for (const source of sources) {
    for (const [key, response] of Object.entries(source)) {
      const status = Number(key);
      const known = merged.get(status);
      if (!known) {
        const schemas = response.schema ? [response.schema] : [];
        const headers = { ...response.headers };
        const mediaType = response.mediaType ?? 'application/json';
        merged.set(status, { description: response.description, schemas, mediaType, retryAfter: response.retryAfter ?? false, headers });
        continue;
      }
      if (response.schema && !known.schemas.includes(response.schema)) known.schemas.push(response.schema);
      known.retryAfter ||= response.retryAfter ?? false;
      Object.assign(known.headers, response.headers);
    }
  }
  return new Map([...merged].sort(([a], [b]) => a - b));
}

/** The schema a body answered with `status` must satisfy, or undefined when the operation does not document that status. */
export function responseSchema(operation: DocumentedOperation, status: number): v.GenericSchema | undefined {
  const schemas = documentedResponses(operation).get(status)?.schemas ?? [];
  if (schemas.length === 0) return undefined;
  return schemas.length === 1 ? schemas[0] : v.union(schemas);
}
