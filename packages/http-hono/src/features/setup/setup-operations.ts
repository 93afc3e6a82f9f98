import { SetupChangeResponse, SetupStatusResponse } from '../../schemas.js';
import { banned, unauthenticated, type Operation } from '../../openapi/documented-operation.js';

/** The first-setup endpoints. */
export const SETUP_OPERATIONS: Operation[] = [
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
];
