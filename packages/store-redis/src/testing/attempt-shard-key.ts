import { KeySpace } from '../keys/key-space.js';

/** A key of the hash tag that holds `clientKey`'s failures and ban under `prefix`: a test finds the cluster node serving them by it. */
export function attemptShardKey(prefix: string, clientKey: string): string {
  return new KeySpace(prefix).attemptsOf(clientKey).counting;
}
