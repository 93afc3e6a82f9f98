import type { Permission } from '@webui/core';
import type * as v from 'valibot';
import { ErrorBody, TooManyAttemptsBody } from '../schemas.js';

export type Access = 'public' | 'session' | 'session-or-200' | 'ticket';

/** A header an answer carries, its value as the schema says; `required` false for one sent only in some setups. */
export interface DocumentedHeader {
  schema: v.GenericSchema;
  required: boolean;
}

export interface DocumentedResponse {
  description: string;
  schema?: v.GenericSchema;
  /** The body's media type when it is not JSON (the Prometheus text of /metrics). */
  mediaType?: string;
  retryAfter?: boolean;
  /** Headers besides Retry-After, by name: what a bodiless answer (a 204) says. */
  headers?: Record<string, DocumentedHeader>;
}

/** One endpoint as the OpenAPI document describes it; the bodies are the schemas the routes validate and answer with. */
export interface DocumentedOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Path parameters in OpenAPI's `{name}` form. */
  path: string;
  /** A description of each path parameter. */
  pathParameters?: Record<string, string>;
  summary: string;
  description: string;
  access: Access;
  /**
   * What the operation needs beyond its method (a GET `read`, any other `admin`), as its route's `requires` says: `admin`
   * for a GET only an admin may call, `manage_keys` or `change_token` for what only the access token may do.
   */
  needs?: Permission;
  /** The document's tag; the path's first segment by default. */
  tag?: string;
  /** False for the few operations that never ask the state store, so never answer 503 store_unavailable. */
  store?: false;
  requestBody?: v.GenericSchema;
  /** This operation's own answers; the guards' answers every operation shares are added in documented-responses.ts. */
  responses: Record<number, DocumentedResponse>;
}

/** One of this server's own endpoints: the methods it answers with. */
export interface Operation extends DocumentedOperation {
  method: 'get' | 'post' | 'delete';
}

export const banned: DocumentedResponse = {
  description: 'This address is banned after repeated failed verifications.',
  schema: TooManyAttemptsBody,
  retryAfter: true,
};
export const unauthenticated: DocumentedResponse = { description: 'No valid session: log in with POST /auth/verify.', schema: ErrorBody };
