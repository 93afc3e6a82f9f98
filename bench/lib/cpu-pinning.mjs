// Keeps the load generator and the server under test off each other's CPU, the usual benchmarking setup.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * @typedef {object} CpuPinning
 * @property {string[]} prefix the command a server is started through (`taskset -c N`), empty when not pinned
 * @property {string} description one line for the report
 * @property {string[]} storePrefix the command redis-server is started through: the load generator's CPUs, as if on another host
 * @property {string} storeDescription where redis-server runs, for the report
 * @property {string[]} upstreamPrefix the command the gateway comparison's upstream is started through: the load generator's CPUs
 * @property {string} upstreamDescription where that upstream runs, for the report
 */

/**
 * On a machine with at least two CPUs and `taskset` (util-linux), the servers run on the last CPU and
 * this process (autocannon and the WebSocket workers) on the others: one server at a time is measured,
 * so both get the same CPU alone. Otherwise nothing is pinned and the report says why.
 * @param {boolean} wanted
 * @returns {CpuPinning}
 */
export function pinCpus(wanted) {
  const count = availableParallelism();
  const unpinned = (description) => ({
    prefix: [],
    description,
    storePrefix: [],
    storeDescription: 'not pinned',
    upstreamPrefix: [],
    upstreamDescription: 'not pinned',
  });
  if (!wanted) return unpinned('not pinned (--no-pin)');
  if (count < 2) return unpinned(`not pinned: ${count} CPU`);
  const serverCpu = String(count - 1);
  const loadCpus = count === 2 ? '0' : `0-${count - 2}`;
  // -a: every thread of this process, V8's and libuv's helpers included, not only the main one.
  const self = spawnSync('taskset', ['-a', '-pc', loadCpus, String(process.pid)], { stdio: 'ignore' });
  if (self.error || self.status !== 0) return unpinned('not pinned: taskset (util-linux) is not available');
  return {
    prefix: ['taskset', '-c', serverCpu],
    description: `servers on CPU ${serverCpu}, load generator on CPU ${loadCpus}`,
    // Never on the server's CPU: what Redis costs the server is its round trips, not a share of its CPU.
    storePrefix: ['taskset', '-c', loadCpus],
    storeDescription: `on CPU ${loadCpus} with the load generator`,
    // The gateway comparison's upstream shares the load generator's CPU whether it is reached directly or through a proxy,
    // so both setups give it the same CPU and the proxy (on the servers' CPU) adds only its own work.
    upstreamPrefix: ['taskset', '-c', loadCpus],
    upstreamDescription: `on CPU ${loadCpus} with the load generator, in every setup`,
  };
}
