// The gateway comparison: an authenticated GET forwarded by the real server to an upstream, against the same upstream
// reached directly, through nginx and through the Node proxies an operator would otherwise pick, and this server on Bun
// and Deno, in the same rounds; then the server's memory while 50 MB bodies stream through it.
import { httpGet } from '../children.mjs';
import { CONFIG_PATH } from './bench-upstream.mjs';
import { measureStreamingMemory } from './gateway-memory.mjs';
import { pairedVersus } from './gateway-paired.mjs';
import { gatewayTable, gatewayTargets, memoryTable, SETUP_LABELS } from './gateway-report.mjs';
import { GATEWAY_PROXIES, startGatewaySetups } from './gateway-setups.mjs';
import { pairedRatio, summarise } from '../report.mjs';
import { runRounds } from '../rounds.mjs';

export { GATEWAY_PROXIES };
export const GATEWAY_CASE_ID = 'gateway';
/** The peer this server is also measured against at the same time (pairedVersus): the target's. */
const PAIRED_PEER = 'fastify';

const GATEWAY_CASE = {
  id: GATEWAY_CASE_ID,
  label: `GET ${CONFIG_PATH.replace('/api/webui', '')} (authenticated)`,
  run: (target, o) =>
    o.httpLoad({
      url: `http://127.0.0.1:${target.port}${CONFIG_PATH}`,
      headers: target.headers,
      connections: o.connections,
      duration: o.duration,
    }),
};

/**
 * Rounds on fresh processes of `direct` (the upstream alone) and of every setup of `options.gateway` in front of it; the
 * ratios to direct per round and their median, this server's to each peer the same way (its targets); the memory check.
 * @param {{ startServer: Function, pinning: import('../cpu-pinning.mjs').CpuPinning, options: any, log: (line?: string) => void }} run
 */
export async function compareGateway({ startServer, pinning, options, log }) {
  const proxies = options.gateway;
  const placement = upstreamPlacement(pinning, options.upstreamCpu);
  // Every setup started below (the rounds, the paired rounds, the memory check) puts the upstream there.
  const placed = { ...pinning, upstreamPrefix: placement.prefix };
  log(
    `Gateway: ${GATEWAY_CASE.label} on the bench's node:http upstream directly (direct), and through: ` +
      `${proxies.map((kind) => `${SETUP_LABELS[kind]} (${kind})`).join(', ')}; this server with [webui.upstream] and a ` +
      `cookie from a real login, the others passing the upstream's cookie`,
  );
  log(`CPUs: every proxy where the servers above run; the upstream ${placement.description}`);
  const raw = await runRounds({
    cases: [GATEWAY_CASE],
    options,
    log,
    startTargets: () => startGatewaySetups({ startServer, pinning: placed, proxies }),
    onStarted: (targets) => requireSameConfig(targets, log),
  });
  const runs = raw[GATEWAY_CASE_ID];
  const kinds = Object.keys(runs);
  const summaries = Object.fromEntries(kinds.map((kind) => [kind, summarise(runs[kind])]));
  const ratios = Object.fromEntries(kinds.filter((kind) => kind !== 'direct').map((kind) => [kind, pairedRatio(runs[kind], runs.direct)]));
  // This server against each peer, round by round: the targets.
  const versus = Object.fromEntries(
    ['fastify', 'bare'].filter((peer) => runs[peer] !== undefined).map((peer) => [peer, pairedRatio(runs.server, runs[peer])]),
  );
  log();
  log(
    `Gateway (median of ${options.rounds} round(s) of ${options.duration} s, ${options.connections} connections; x direct = req/s ` +
      `through the proxy / direct in each round, and its median; CPU per forward = the proxy process's CPU time / requests)`,
  );
  log();
  log(gatewayTable(summaries, ratios));
  log();

  // The peer of the target, at the same time on the same CPU: the steadier reading of which costs less per forward.
  const paired =
    proxies.includes('server') && proxies.includes(PAIRED_PEER)
      ? await pairedVersus({
          peer: PAIRED_PEER,
          gatewayCase: GATEWAY_CASE,
          startServer,
          pinning: placed,
          options,
          log,
        })
      : null;
  if (paired) {
    log();
    log(
      `Paired (this server and ${SETUP_LABELS[PAIRED_PEER]} loaded at once on the servers' CPU, each by its own load generator; ` +
        `the ratio of their req/s is the ratio of their costs per forward; reported, no target): ` +
        `${paired.median.toFixed(2)} x (per round ${paired.perRound.map((x) => x.toFixed(2)).join(' ')})`,
    );
    log();
  }

  const memory = await measureStreamingMemory({ startServer, pinning: placed, log });
  log();
  log(
    'Gateway memory (RSS while one body streams through the server to or from the upstream; growth = peak during the ' +
      'transfer - RSS before it)',
  );
  log();
  log(memoryTable(memory));
  log();
  const verdicts = gatewayTargets({ versus, memory });
  log(`Gateway targets${options.smoke ? ' (smoke: reported, not enforced)' : ' (reported; a FAIL does not change the exit code)'}`);
  for (const v of verdicts) log(`  ${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`);
  log();
  const failures = [
    ...kinds.flatMap((kind) => {
      const s = summaries[kind];
      return s.non2xx > 0 || s.errors > 0 || s.requests === 0
        ? [`${GATEWAY_CASE.label} ${kind}: ${s.requests} completed, ${s.non2xx} non-2xx, ${s.errors} errors`]
        : [];
    }),
    ...memory.filter((m) => m.error !== undefined).map((m) => `gateway ${m.direction} of ${m.bytes} bytes: ${m.error}`),
    ...(paired?.failures ?? []),
  ];
  return {
    summaries,
    ratios,
    versus,
    ...(paired ? { paired: { peer: paired.peer, median: paired.median, perRound: paired.perRound } } : {}),
    runs: raw,
    memory,
    targets: verdicts,
    upstreamCpus: placement.description,
    failures,
  };
}

/** Where the upstream runs: with the load generator (default), or on the servers' CPU with the proxy. */
function upstreamPlacement(pinning, where) {
  if (where === 'server') return { prefix: pinning.prefix, description: `on the servers' CPU, sharing it with the proxy measured` };
  return { prefix: pinning.upstreamPrefix, description: pinning.upstreamDescription };
}

/** Every setup answers the same 200 JSON, the upstream's, or the comparison would be meaningless. */
async function requireSameConfig(targets, log) {
  const answers = await Promise.all(Object.values(targets).map((t) => httpGet(t.port, CONFIG_PATH, t.headers)));
  const kinds = Object.keys(targets);
  const problems = answers.flatMap((a, i) =>
    a.status !== 200 || a.body !== answers[0].body ? [`${CONFIG_PATH} through ${kinds[i]}: ${a.status} ${a.body.slice(0, 200)}`] : [],
  );
  if (problems.length === 0) return;
  for (const problem of problems) log(`PREFLIGHT FAIL ${problem}`);
  throw new Error('the gateway setups do not answer alike; nothing was measured');
}
