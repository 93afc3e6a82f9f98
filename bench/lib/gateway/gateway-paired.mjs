// This server and one peer loaded at the same time on the servers' CPU, each by a load generator of its own: the kernel
// shares the CPU between the two, so the ratio of their req/s is the ratio of their costs per forward. Sequential rounds
// measure each alone, as an operator runs it, but when the two are close their per-round spread (0.88 to 1.07 on this
// machine) hides which is cheaper; the paired reading does not depend on the machine's speed drifting between slices.
import { median } from '../stats.mjs';
import { startGatewaySetups } from './gateway-setups.mjs';

/**
 * `options.rounds` rounds, each on fresh processes (the upstream, this server, `peer`): both warmed up together, then
 * loaded together for `options.duration` seconds. Reported, with no target.
 * @param {{ peer: string, gatewayCase: { run: Function }, startServer: Function, pinning: any, options: any,
 *   log: (line?: string) => void }} run
 * @returns {Promise<{ peer: string, median: number, perRound: number[], failures: string[] }>}
 */
export async function pairedVersus({ peer, gatewayCase, startServer, pinning, options, log }) {
  const perRound = [];
  const failures = [];
  for (let round = 0; round < options.rounds; round++) {
    const setups = await startGatewaySetups({ startServer, pinning, proxies: ['server', peer] });
    try {
      const both = [setups.server, setups[peer]];
      if (options.warmup > 0) await Promise.all(both.map((target) => gatewayCase.run(target, { ...options, duration: options.warmup })));
      const [ours, theirs] = await Promise.all(both.map((target) => gatewayCase.run(target, options)));
      for (const [kind, result] of [
        ['server', ours],
        [peer, theirs],
      ]) {
        if (result.non2xx > 0 || result.errors > 0 || result.requests === 0)
          failures.push(`paired ${kind}: ${result.requests} completed, ${result.non2xx} non-2xx, ${result.errors} errors`);
      }
      perRound.push(ours.rps / theirs.rps);
      log(
        `paired round ${round + 1}/${options.rounds}  server ${ours.rps.toFixed(0)} req/s  ${peer} ${theirs.rps.toFixed(0)} req/s  ` +
          `ratio ${(ours.rps / theirs.rps).toFixed(3)}`,
      );
    } finally {
      await Promise.all(Object.values(setups).map((setup) => setup.stop()));
    }
  }
  return { peer, median: median(perRound), perRound, failures };
}
