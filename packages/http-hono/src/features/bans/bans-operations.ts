import { BanLiftResponse, BanListResponse, ErrorBody } from '../../schemas.js';
import { banned, unauthenticated, type Operation } from '../../openapi/documented-operation.js';

/** The bans: listing, lifting. */
export const BANS_OPERATIONS: Operation[] = [
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
];
