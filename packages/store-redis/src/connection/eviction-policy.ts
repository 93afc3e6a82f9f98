import { nodesOf, type RedisClient } from './redis-client.js';

/**
 * The maxmemory-policy of every master that does not say `noeviction`, as `host:port policy`: under any other policy a full
 * Redis evicts keys, a running ban among them. Empty when every master says noeviction or INFO cannot be read (an ACL
 * that forbids it): this is a warning, never a refusal to start.
 */
export async function evictingMasters(client: RedisClient): Promise<string[]> {
  const masters = nodesOf(client, 'master');
  const found = await Promise.all(
    masters.map(async (node) => {
      const info = await node.info('memory').catch(() => '');
      const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
      return policy === undefined || policy === 'noeviction' ? null : `${node.options.host}:${node.options.port} ${policy}`;
    }),
  );
  return found.filter((entry): entry is string => entry !== null);
}
