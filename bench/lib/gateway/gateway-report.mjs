// The gateway comparison's tables and targets (issue 44: this server at least as fast as @fastify/http-proxy, stretch the
// bare node:http forwarder; issue 33: flat memory while streaming).
import { markdownTable } from '../report.mjs';

const MB = 1024 * 1024;

export const GATEWAY_TARGETS = {
  /** This server's req/s over @fastify/http-proxy's, median of the per-round ratios. */
  serverOverFastify: 1,
  /** Stretch: over the bare forwarder's (bench/lib/peers/bare-forwarder.mjs). */
  serverOverBare: 1,
  /**
   * Flat: while a body streams through, the server's peak RSS grows by less than this share of the body beyond what the
   * bare node:http upstream's grows moving the same body (Node's own socket buffers, which a first transfer also leaves in
   * the allocator's free lists); a body held in memory would add all of it.
   */
  memoryShareOfBody: 0.2,
};

export const SETUP_LABELS = {
  direct: 'upstream, directly',
  nginx: 'nginx-light, proxy_pass + keepalive',
  bare: 'bare node:http forwarder',
  fastify: 'fastify + @fastify/http-proxy',
  'http-proxy-3': 'http-proxy-3 on node:http',
  server: 'this server (Node), login checked',
  bun: 'this server on Bun, login checked',
  deno: 'this server on Deno, login checked',
};
const num = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/**
 * One row per setup: req/s, the ratio to direct (median and per round), latencies, the CPU per forward of the proxy (its
 * process's CPU time over the requests) and of the upstream behind it, and the proxy's RSS after the round.
 */
export function gatewayTable(summaries, ratios, labels = SETUP_LABELS) {
  const header = [
    'Setup',
    'req/s',
    'x direct',
    'x direct per round',
    'p50 / p99 ms',
    'CPU us per forward',
    'upstream CPU us/req',
    'RSS MB',
  ];
  const rows = Object.entries(summaries).map(([kind, s]) => {
    const ratio = ratios[kind];
    const direct = kind === 'direct';
    return [
      labels[kind] ?? kind,
      num(s.rps),
      direct ? '1' : num(ratio.median, 2),
      direct ? '' : ratio.perRound.map((x) => num(x, 2)).join(' '),
      `${num(s.p50, 2)} / ${num(s.p99, 2)}`,
      // Direct has no proxy: its process is the upstream.
      direct ? '-' : num(s.cpuUsPerRequest),
      direct ? num(s.cpuUsPerRequest) : num(s.storeCpuUsPerRequest),
      num(s.rssMb, 1),
    ];
  });
  return markdownTable(header, rows, [false, true, true, true, true, true, true, true]);
}

export function memoryTable(memory) {
  const header = ['Body through the server', 'Seconds', 'Server RSS before / peak MB', 'Server growth MB', 'Upstream growth MB'];
  const rows = memory.map((m) => [
    `${m.direction} ${num(m.bytes / MB)} MB, ${m.time}${m.error ? ' (FAILED)' : ''}`,
    num(m.seconds, 2),
    `${num(m.server.before / MB, 1)} / ${num(m.server.peak / MB, 1)}`,
    num(m.server.growth / MB, 1),
    num(m.upstream.growth / MB, 1),
  ]);
  return markdownTable(header, rows, [false, true, true, true, true]);
}

/**
 * The speed targets against the peers measured (`versus`: this server's paired ratios to each peer) and the memory ones.
 * @returns {Array<{ target: string, measured: string, pass: boolean }>}
 */
export function gatewayTargets({ versus, memory }) {
  const t = GATEWAY_TARGETS;
  const speed = [
    ['fastify', t.serverOverFastify, ''],
    ['bare', t.serverOverBare, 'stretch: '],
  ].flatMap(([peer, wanted, stretch]) => {
    const ratio = versus[peer];
    if (ratio === undefined) return [];
    return [
      {
        target: `${stretch}forwarded authenticated GET through this server >= ${wanted} x the req/s of the ${SETUP_LABELS[peer]}`,
        measured: `${num(ratio.median, 2)} x (per round ${ratio.perRound.map((x) => num(x, 2)).join(' ')})`,
        pass: ratio.median >= wanted,
      },
    ];
  });
  return [
    ...speed,
    ...memory.map((m) => {
      const added = m.server.growth - Math.max(0, m.upstream.growth);
      return {
        target:
          `memory flat while ${num(m.bytes / MB)} MB stream through (${m.direction}, ${m.time}): the server's RSS growth beyond ` +
          `the bare upstream's < ${t.memoryShareOfBody} of the body`,
        measured:
          `${num(added / MB, 1)} MB (server ${num(m.server.growth / MB, 1)}, upstream ${num(m.upstream.growth / MB, 1)}; ` +
          `${m.server.sampledBy})`,
        pass: m.error === undefined && added < t.memoryShareOfBody * m.bytes,
      };
    }),
  ];
}
