// The gateway comparison's tables and targets (issue 33: at least 0.5 of the upstream's rate; flat memory while streaming).
import { markdownTable } from './report.mjs';

const MB = 1024 * 1024;

export const GATEWAY_TARGETS = {
  /** Forwarded through this server / the upstream reached directly, req/s. */
  serverRatio: 0.5,
  /**
   * Flat: while a body streams through, the server's peak RSS grows by less than this share of the body beyond what the
   * bare node:http upstream's grows moving the same body (Node's own socket buffers, which a first transfer also leaves in
   * the allocator's free lists); a body held in memory would add all of it.
   */
  memoryShareOfBody: 0.2,
};

const SETUP_LABELS = { direct: 'upstream, directly', server: 'through this server', nginx: 'through nginx' };
const num = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** One row per setup: req/s, the ratio to direct (median and per round), latencies, CPU of the proxy and of the upstream. */
export function gatewayTable(summaries, ratios) {
  const header = ['Setup', 'req/s', 'Ratio to direct', 'Ratio per round', 'p50 / p99 ms', 'CPU us/req proxy / upstream', 'RSS MB'];
  const rows = Object.entries(summaries).map(([kind, s]) => {
    const ratio = ratios[kind];
    const direct = kind === 'direct';
    return [
      SETUP_LABELS[kind] ?? kind,
      num(s.rps),
      direct ? '1' : num(ratio.median, 2),
      direct ? '' : ratio.perRound.map((x) => num(x, 2)).join(' '),
      `${num(s.p50, 2)} / ${num(s.p99, 2)}`,
      // Direct has no proxy: its process is the upstream.
      direct ? `- / ${num(s.cpuUsPerRequest)}` : `${num(s.cpuUsPerRequest)} / ${num(s.storeCpuUsPerRequest)}`,
      num(s.rssMb, 1),
    ];
  });
  return markdownTable(header, rows, [false, true, true, true, true, true, true]);
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

/** @returns {Array<{ target: string, measured: string, pass: boolean }>} */
export function gatewayTargets({ ratios, memory }) {
  const t = GATEWAY_TARGETS;
  const server = ratios.server.median;
  const nginx = ratios.nginx ? ` (nginx in the same place: ${num(ratios.nginx.median, 2)})` : '';
  return [
    {
      target: `forwarded authenticated GET through this server >= ${t.serverRatio} of the upstream's req/s served directly`,
      measured: `${num(server, 2)}${nginx}`,
      pass: server >= t.serverRatio,
    },
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
