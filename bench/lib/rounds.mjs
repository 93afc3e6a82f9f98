// Rounds: every case on every target, on fresh processes each round, the targets alternating slice by slice.
import { readCounters, rssBytes, sleep } from './children.mjs';
import { median } from './stats.mjs';

const MB = 1024 * 1024;

/**
 * @typedef {object} Target a running server under test
 * @property {import('./children.mjs').Child} child
 * @property {number} port
 * @property {string} token
 * @property {string} cookie
 * @property {number} [storePid] the process holding its store (redis-server), whose CPU counts per request too
 * @property {string} [storeLabel] what that process is, for the log line (default `store`; the gateway's upstream)
 */

/** Unrecorded runs of every case on every target, so the JIT of each process is warm before its round. */
async function warmUp({ cases, targets, options, log }) {
  if (options.warmup <= 0) return;
  log(`warm-up: ${options.warmup} s per case and ${Object.keys(targets).join('/')}, not recorded`);
  for (const c of cases) for (const target of Object.values(targets)) await c.run(target, { ...options, duration: options.warmup });
  await sleep(1_000);
}

/**
 * The rounds, each on fresh processes: `startTargets()` starts them (in the order of round 1; even rounds
 * run them in reverse, so neither always goes first), `onStarted` and `onFinished` see them before the
 * warm-up and after the last case, and every target's `stop()` ends them. One pair of processes for
 * every round would measure that pair: where V8 inlines and what it optimises settles differently in
 * each process (bench/README.md has two runs of the same builds that disagree by 20 %).
 * Within a round, each case runs on the targets in `options.slices` alternating slices (A B B A A B ...,
 * each `duration / slices` seconds): this machine's speed drifts over seconds, and short slices side
 * by side see the same machine. A target's round adds up its slices.
 * @param {{ cases: Array<{ id: string, label: string, run: Function }>, startTargets: () => Promise<Record<string, Target & { stop():
 * Promise<void> }>>,
 * onStarted?: (targets: Record<string, Target>, round: number) => Promise<void>, onFinished?: (targets: Record<string, Target>, round:
 * number) => Promise<void>,
 *   options: any, log: (line?: string) => void }} run
 * @returns {Promise<Record<string, Record<string, any[]>>>} per case, per target, one entry per round
 */
export async function runRounds({ cases, startTargets, onStarted, onFinished, options, log }) {
  /** @type {Record<string, Record<string, any[]>>} */
  const raw = Object.fromEntries(cases.map((c) => [c.id, {}]));
  for (let round = 0; round < options.rounds; round++) {
    const targets = await startTargets();
    try {
      await onStarted?.(targets, round);
      // The JIT of both processes warms up before anything is recorded.
      await warmUp({ cases, targets, options, log });
      await runRound({ round, cases, targets, options, log, raw });
      await onFinished?.(targets, round);
    } finally {
      await Promise.all(Object.values(targets).map((target) => target.stop()));
    }
  }
  return raw;
}

/** One round of every case on `targets`; adds an entry per case and target to `raw`. */
async function runRound({ round, cases, targets, options, log, raw }) {
  const kinds = Object.keys(targets);
  const slices = options.slices ?? 1;
  const sliceOptions = { ...options, duration: options.duration / slices };
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const c of cases) {
    const measured = Object.fromEntries(kinds.map((kind) => [kind, []]));
    for (let slice = 0; slice < slices; slice++) {
      // Each slice reverses the one before: neither target always runs right after the other.
      for (const kind of slice % 2 === 0 ? order : [...order].reverse()) {
        measured[kind].push(await measureOnce(c, kind, targets[kind], sliceOptions));
        // Sockets of the previous run close and the collector catches up before the next one.
        await sleep(options.smoke || slices > 1 ? 200 : 1_000);
      }
    }
    for (const kind of order) {
      const entry = { round: round + 1, ...combineSlices(measured[kind]), rss: rssBytes(targets[kind].child.pid) };
      (raw[c.id][kind] ??= []).push(entry);
      const { io, storeCpuUsPerRequest } = entry;
      log(
        `round ${round + 1}/${options.rounds}  ${c.label.padEnd(34)} ${kind.padEnd(12)} ${entry.rps.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${entry.p50.toFixed(2).padStart(6)} ms  p99 ${entry.p99.toFixed(2).padStart(6)} ms  CPU ` +
          `${(io?.cpuUsPerRequest ?? NaN).toFixed(0).padStart(4)} us/req  RSS ${((entry.rss ?? NaN) / MB).toFixed(1)} MB` +
          (storeCpuUsPerRequest === undefined
            ? ''
            : `  ${targets[kind].storeLabel ?? 'store'} CPU ${storeCpuUsPerRequest.toFixed(0)} us/req`) +
          (entry.non2xx || entry.errors
            ? `  non-2xx ${entry.non2xx} errors ${entry.errors}${entry.firstError ? ` (${entry.firstError})` : ''}`
            : ''),
      );
    }
  }
}

/** One run of a case on one target, with the CPU and reads its process (and its store's) spent on it. */
async function measureOnce(c, kind, target, options) {
  const before = readCounters(target.child.pid);
  const storeBefore = target.storePid === undefined ? null : readCounters(target.storePid);
  const result = await c.run(target, options);
  const after = readCounters(target.child.pid);
  const storeAfter = target.storePid === undefined ? null : readCounters(target.storePid);
  if (target.child.exited()) throw new Error(`the ${kind} process died during ${c.label}`);
  const spent =
    before && after
      ? { cpuSeconds: after.cpuSeconds - before.cpuSeconds, syscr: after.syscr - before.syscr, rchar: after.rchar - before.rchar }
      : null;
  const storeCpuSeconds = storeBefore && storeAfter ? storeAfter.cpuSeconds - storeBefore.cpuSeconds : undefined;
  return { result, spent, storeCpuSeconds };
}

/**
 * A target's slices of one round as one run: requests and time added up (so req/s weighs every slice by
 * its length), the median slice's p50 and p99, CPU and reads per request over all of them.
 */
function combineSlices(runs) {
  const requests = runs.reduce((sum, run) => sum + run.result.requests, 0);
  const seconds = runs.reduce((sum, run) => sum + run.result.seconds, 0);
  const spent = runs.every((run) => run.spent !== null)
    ? runs.reduce(
        (sum, run) => ({
          cpuSeconds: sum.cpuSeconds + run.spent.cpuSeconds,
          syscr: sum.syscr + run.spent.syscr,
          rchar: sum.rchar + run.spent.rchar,
        }),
        { cpuSeconds: 0, syscr: 0, rchar: 0 },
      )
    : null;
  const storeCpuSeconds = runs.every((run) => run.storeCpuSeconds !== undefined)
    ? runs.reduce((sum, run) => sum + run.storeCpuSeconds, 0)
    : undefined;
  const io =
    spent && requests > 0
      ? {
          readsPerRequest: spent.syscr / requests,
          bytesPerRequest: spent.rchar / requests,
          cpuUsPerRequest: (spent.cpuSeconds * 1e6) / requests,
        }
      : null;
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    p50: median(runs.map((run) => run.result.p50)),
    p99: median(runs.map((run) => run.result.p99)),
    requests,
    seconds,
    non2xx: runs.reduce((sum, run) => sum + run.result.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.result.errors, 0),
    firstError: runs.find((run) => run.result.firstError !== undefined)?.result.firstError,
    slices: runs.length,
    io,
    ...(storeCpuSeconds === undefined || requests === 0 ? {} : { storeCpuUsPerRequest: (storeCpuSeconds * 1e6) / requests }),
  };
}
