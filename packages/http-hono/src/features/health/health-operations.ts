import { HealthDegradedBody, HealthResponse } from '../../schemas.js';
import { type Operation } from '../../openapi/documented-operation.js';

/** GET /health. */
export const HEALTH_OPERATIONS: Operation[] = [
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
];
