import { attemptShardKey, type RedisClusterHandle } from '@webui/store-redis/testing';
import { HttpClient } from './http-client.js';

/** One answer to a guess, as the traffic saw it. */
export interface Answer {
  status: number;
  at: number;
  /** remaining_attempts of a 200, the error code (docs/decisions/0001-error-bodies.md) of an error. */
  remaining?: unknown;
  code?: unknown;
}

/** The port of the cluster master that holds the failures and ban of the client at `address` (an IPv4 address is its own key). */
export function attemptsMasterOf(cluster: RedisClusterHandle, prefix: string, address: string): Promise<number> {
  return cluster.masterOf(attemptShardKey(prefix, address));
}

/** A loopback address (127.<third>.x.1…) whose counts the cluster master on `master` holds. */
export async function addressOn(cluster: RedisClusterHandle, prefix: string, master: number, third: number): Promise<string> {
  for (let i = 1; i < 255; i++) {
    const address = `127.0.${third}.${i}`;
    if ((await attemptsMasterOf(cluster, prefix, address)) === master) return address;
  }
  throw new Error(`no address 127.0.${third}.x has its counts on the master on port ${master}`);
}

/** Wrong guesses from `address` to one instance, one after another, until `stop` says so. */
export async function guessUntil(baseUrl: string, address: string, stop: (answers: Answer[]) => boolean): Promise<Answer[]> {
  const client = new HttpClient(baseUrl, { localAddress: address });
  const answers: Answer[] = [];
  for (let i = 0; !stop(answers); i++) {
    const res = await client.post('/auth/verify', { body: { token: `wrong-guess-${i}` } });
    answers.push({ status: res.status, at: Date.now(), remaining: res.json?.['remaining_attempts'], code: res.json?.['code'] });
  }
  return answers;
}
