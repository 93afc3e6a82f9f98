// Rounds: every case on every target, one target after the other, the order alternating round by round.
import { readCounters, rssBytes, sleep } from './children.mjs';

const MB = 1024 * 1024;

/**
 * @typedef {object} Target a running server under test
 * @property {import('./children.mjs').Child} child
 * @property {number} port
 * @property {string} token
 * @property {string} cookie
 * @property {number} [storePid] the process holding its store (redis-server), whose CPU counts per request too
 */

/** Unrecorded runs of every case on every target, so the JIT of each process is warm before round 1. */
export async function warmUp({ cases, targets, options, log }) {
  if (options.warmup <= 0) return;
  log(`warm-up: ${options.warmup} s per case and ${Object.keys(targets).join('/')}, not recorded`);
  for (const c of cases) for (const target of Object.values(targets)) await c.run(target, { ...options, duration: options.warmup });
  await sleep(1_000);
}

/**
 * `targets` in the order of round 1; even rounds run them in reverse, so neither always goes first.
 * @param {{ cases: Array<{ id: string, label: string, run: Function }>, targets: Record<string, Target>, options: any, log: (line?: string) => void }} run
 * @returns {Promise<Record<string, Record<string, any[]>>>} per case, per target, one entry per round
 */
export async function runRounds({ cases, targets, options, log }) {
  const kinds = Object.keys(targets);
  const raw = Object.fromEntries(cases.map((c) => [c.id, Object.fromEntries(kinds.map((kind) => [kind, []]))]));
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? kinds : [...kinds].reverse();
    for (const c of cases) {
      for (const kind of order) {
        const target = targets[kind];
        const before = readCounters(target.child.pid);
        const storeBefore = target.storePid === undefined ? null : readCounters(target.storePid);
        const result = await c.run(target, options);
        const after = readCounters(target.child.pid);
        const storeAfter = target.storePid === undefined ? null : readCounters(target.storePid);
        const rss = rssBytes(target.child.pid);
        const io = before && after && result.requests > 0
          ? {
              readsPerRequest: (after.syscr - before.syscr) / result.requests,
              bytesPerRequest: (after.rchar - before.rchar) / result.requests,
              cpuUsPerRequest: ((after.cpuSeconds - before.cpuSeconds) * 1e6) / result.requests,
            }
          : null;
        const storeCpuUsPerRequest = storeBefore && storeAfter && result.requests > 0 ? ((storeAfter.cpuSeconds - storeBefore.cpuSeconds) * 1e6) / result.requests : undefined;
        raw[c.id][kind].push({ round: round + 1, ...result, rss, io, ...(storeCpuUsPerRequest === undefined ? {} : { storeCpuUsPerRequest }) });
        log(
          `round ${round + 1}/${options.rounds}  ${c.label.padEnd(34)} ${kind.padEnd(8)} ${result.rps.toFixed(0).padStart(6)} req/s  ` +
            `p50 ${result.p50.toFixed(2).padStart(6)} ms  p99 ${result.p99.toFixed(2).padStart(6)} ms  CPU ${(io?.cpuUsPerRequest ?? NaN).toFixed(0).padStart(4)} us/req  RSS ${((rss ?? NaN) / MB).toFixed(1)} MB` +
            (storeCpuUsPerRequest === undefined ? '' : `  store CPU ${storeCpuUsPerRequest.toFixed(0)} us/req`) +
            (result.non2xx || result.errors ? `  non-2xx ${result.non2xx} errors ${result.errors}${result.firstError ? ` (${result.firstError})` : ''}` : ''),
        );
        if (target.child.exited()) throw new Error(`the ${kind} process died during ${c.label}`);
        // Sockets of the previous run close and the collector catches up before the next one.
        await sleep(options.smoke ? 200 : 1_000);
      }
    }
  }
  return raw;
}
