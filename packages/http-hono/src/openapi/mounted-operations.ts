import type { MountedRoute } from '../mount/mount-route-groups.js';
import { openApiPath } from '../mount/mount-paths.js';
import type { RouteGroup, RouteMethod } from '../mount/route-group.js';
import { banned, unauthenticated, type DocumentedResponse, type DocumentedOperation } from './documented-operation.js';

const DOCUMENTED_METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The operations of a bot's route groups for the OpenAPI document: each declared route with the schemas it validates
 * (body) and names (response), and each route of a whole Hono app mounted in a group, which the document can only name.
 */
export function mountedOperations(routes: readonly MountedRoute[], groups: readonly RouteGroup[], prefix: string): DocumentedOperation[] {
  const declared = routes.map((route) =>
    operationOf(route.method, route.fullPath.slice(prefix.length), route.group.path.slice(prefix.length), {
      public: route.options.public === true,
      summary: route.options.summary,
      description: route.options.description,
      // The one scope a method does not imply (mount-route-groups.ts refuses a read scope on any other method).
      adminGet: route.method === 'GET' && route.options.scope === 'admin',
      tag: route.options.tag,
      requestBody: route.options.body,
      ok: { description: 'Answered by the route.', ...(route.options.response ? { schema: route.options.response } : {}) },
    }),
  );
  const whole = groups.flatMap((group) =>
    (group.app?.routes ?? [])
      // Middleware (`use`, any method) and patterns OpenAPI cannot write are left out.
      .filter((route) => DOCUMENTED_METHODS.has(route.method) && !/[*{}?]/.test(route.path))
      .map((route) => {
        const path = `${group.path.slice(prefix.length)}${route.path === '/' ? '' : route.path}`;
        return operationOf(route.method as RouteMethod, path, group.path.slice(prefix.length), {
          public: false,
          ok: { description: 'Answered by the Hono app mounted in this group.' },
        });
      }),
  );
  return [...declared, ...whole];
}

interface Described {
  public: boolean;
  adminGet?: boolean;
  summary?: string | undefined;
  description?: string | undefined;
  tag?: string | undefined;
  requestBody?: DocumentedOperation['requestBody'];
  ok: DocumentedResponse;
}

function operationOf(method: RouteMethod, path: string, groupPath: string, described: Described): DocumentedOperation {
  const documentedPath = openApiPath(path);
  const parameters = [...documentedPath.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const operation: DocumentedOperation = {
    method: method.toLowerCase() as DocumentedOperation['method'],
    path: documentedPath,
    summary: described.summary ?? `${method} ${documentedPath}`,
    description: described.description ?? (described.public ? 'A public route of a mounted group.' : 'A route of a mounted group.'),
    tag: described.tag ?? groupPath.slice(1),
    access: described.public ? 'public' : 'session',
    ...(described.adminGet ? { needs: 'admin' as const } : {}),
    // A public route asks nothing of the store before its handler; a guarded one authenticates first.
    ...(described.public ? { store: false as const } : {}),
    responses: described.public ? { 200: described.ok } : { 200: described.ok, 401: unauthenticated, 429: banned },
  };
  if (parameters.length > 0) operation.pathParameters = Object.fromEntries(parameters.map((name) => [name, `The ${name} of the route.`]));
  if (described.requestBody) operation.requestBody = described.requestBody;
  return operation;
}
