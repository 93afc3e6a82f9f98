// Summaries, the results table and the targets of the performance issue.
import { median } from './stats.mjs';

const MB = 1024 * 1024;

/** Targets as ratios to the bare baseline (machines are noisy) plus a few absolute limits. */
export const TARGETS = {
  checkValidRatio: 0.8,
  checkValidP99Ms: 5,
  checkValidP99Connections: 64,
  verifyRatio: 0.6,
  wsTokenRatio: 0.7,
  idleRssMb: 80,
  startupMs: 1000,
};

/** Medians over rounds for one server in one case; RSS is the highest seen after a round. */
export function summarise(rounds) {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rssMb: Math.max(...rounds.map((r) => (r.rss ?? NaN) / MB)),
    readsPerRequest: median(rounds.map((r) => r.io?.readsPerRequest ?? NaN)),
    bytesReadPerRequest: median(rounds.map((r) => r.io?.bytesPerRequest ?? NaN)),
    cpuUsPerRequest: median(rounds.map((r) => r.io?.cpuUsPerRequest ?? NaN)),
    storeCpuUsPerRequest: median(rounds.map((r) => r.storeCpuUsPerRequest ?? NaN)),
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
  };
}

const num = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/**
 * `a`'s req/s over `b`'s, round by round (the two ran side by side in each round, so each ratio saw one
 * state of the machine), and the median of those ratios: the comparison the targets use.
 */
export function pairedRatio(aRounds, bRounds) {
  const perRound = aRounds.map((a, i) => a.rps / (bRounds[i]?.rps ?? NaN));
  return { median: median(perRound), perRound };
}

/** A paired ratio as two table cells: its median, and each round's. */
const ratioCells = (ratio) => [num(ratio.median, 2), ratio.perRound.map((x) => num(x, 2)).join(' ')];

/** The results table in Markdown, readable as plain text too. */
export function resultsTable(cases, summaries, ratios) {
  const header = [
    'Case',
    'Server req/s',
    'Baseline req/s',
    'Ratio',
    'Ratio per round',
    'Server p50 / p99 ms',
    'Baseline p50 / p99 ms',
    'Server RSS MB',
    'Baseline RSS MB',
    'CPU us/req server / baseline',
  ];
  const rows = cases.map((c) => {
    const s = summaries[c.id].server;
    const b = summaries[c.id].baseline;
    return [
      c.label,
      num(s.rps),
      num(b.rps),
      ...ratioCells(ratios[c.id]),
      `${num(s.p50, 2)} / ${num(s.p99, 2)}`,
      `${num(b.p50, 2)} / ${num(b.p99, 2)}`,
      num(s.rssMb, 1),
      num(b.rssMb, 1),
      `${num(s.cpuUsPerRequest)} / ${num(b.cpuUsPerRequest)}`,
    ];
  });
  return markdownTable(header, rows, [false, true, true, true, true, true, true, true, true, true]);
}

/** The same server on the JSON file and on Redis, per case; the ratio is Redis / JSON req/s. */
export function storesTable(cases, summaries, ratios) {
  const header = [
    'Case',
    'JSON req/s',
    'Redis req/s',
    'Ratio',
    'Ratio per round',
    'JSON p50 / p99 ms',
    'Redis p50 / p99 ms',
    'CPU us/req server JSON / Redis',
    'redis-server CPU us/req',
  ];
  const rows = cases.map((c) => {
    const j = summaries[c.id].json;
    const r = summaries[c.id].redis;
    return [
      c.label,
      num(j.rps),
      num(r.rps),
      ...ratioCells(ratios[c.id]),
      `${num(j.p50, 2)} / ${num(j.p99, 2)}`,
      `${num(r.p50, 2)} / ${num(r.p99, 2)}`,
      `${num(j.cpuUsPerRequest)} / ${num(r.cpuUsPerRequest)}`,
      num(r.storeCpuUsPerRequest),
    ];
  });
  return markdownTable(header, rows, [false, true, true, true, true, true, true, true, true]);
}

export function markdownTable(header, rows, rightAligned) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) =>
    `| ${cells.map((cell, i) => (rightAligned[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => `${'-'.repeat(w + 1)}${rightAligned[i] ? ':' : '-'}`).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/**
 * PASS/FAIL per target of the issue.
 * @returns {Array<{ target: string, measured: string, pass: boolean, note?: string }>}
 */
export function evaluateTargets({ summaries, ratios, startup, idle, connections, tokenFileBytes }) {
  const t = TARGETS;
  const ratio = (id) => ratios[id].median;
  const results = [];
  // A --cases run without a case leaves its targets out.
  if (summaries['check-valid']) {
    results.push({
      target: `GET /auth/check (valid cookie) >= ${t.checkValidRatio} of baseline req/s`,
      measured: num(ratio('check-valid'), 2),
      pass: ratio('check-valid') >= t.checkValidRatio,
    });
    const p99 = summaries['check-valid'].server.p99;
    // The bare baseline's own p99 beside it: an absolute latency target is only as reachable as the machine allows.
    const baselineP99 = summaries['check-valid'].baseline.p99;
    results.push({
      target: `GET /auth/check (valid cookie) p99 < ${t.checkValidP99Ms} ms at ${t.checkValidP99Connections} connections`,
      measured: `${num(p99, 2)} ms at ${connections} connections (bare baseline: ${num(baselineP99, 2)} ms)`,
      pass: p99 < t.checkValidP99Ms,
      ...(connections !== t.checkValidP99Connections
        ? { note: `run with --connections ${t.checkValidP99Connections} for this target` }
        : {}),
    });
  }
  if (summaries.verify)
    results.push({
      target: `POST /auth/verify >= ${t.verifyRatio} of baseline req/s`,
      measured: num(ratio('verify'), 2),
      pass: ratio('verify') >= t.verifyRatio,
    });
  if (summaries['ws-token'])
    results.push({
      target: `GET /ws-token >= ${t.wsTokenRatio} of baseline req/s`,
      measured: num(ratio('ws-token'), 2),
      pass: ratio('ws-token') >= t.wsTokenRatio,
    });

  // Reading webui.json brings in at least its size in bytes; eventfd wake-ups (8 B) and socket reads are common to both.
  const ioCases = ['check-valid', 'verify', 'ws-token'].filter((id) => summaries[id]);
  const extraReads = ioCases.map((id) => summaries[id].server.readsPerRequest - summaries[id].baseline.readsPerRequest);
  const extraBytes = ioCases.map((id) => summaries[id].server.bytesReadPerRequest - summaries[id].baseline.bytesReadPerRequest);
  const limit = tokenFileBytes / 2;
  const worst = Math.max(...extraBytes);
  if (ioCases.length > 0)
    results.push({
      target: `no file read on the request path (extra bytes read per request vs baseline < half of webui.json, ${num(limit, 0)} B)`,
      measured: ioCases.map((id, i) => `${id} ${num(extraBytes[i], 1)} B in ${num(extraReads[i], 2)} reads`).join('; '),
      pass: Number.isFinite(worst) && worst < limit,
      ...(Number.isFinite(worst) ? {} : { note: '/proc/<pid>/io is not readable here' }),
    });
  const afterLoad = idle.afterLoad
    ? `; ${num(idle.afterLoad.server / MB, 1)} MB idle after the load (baseline ${num(idle.afterLoad.baseline / MB, 1)} MB)`
    : '';
  results.push({
    target: `idle RSS < ${t.idleRssMb} MB (after startup, before any load)`,
    measured: `${num(idle.server / MB, 1)} MB (baseline ${num(idle.baseline / MB, 1)} MB)${afterLoad}`,
    pass: idle.server / MB < t.idleRssMb,
  });
  // The median: a single slow spawn on a busy machine says more about the machine than about the server.
  const startMedian = median(startup.server);
  results.push({
    target: `startup to first healthy answer < ${t.startupMs} ms (median of ${startup.server.length})`,
    measured:
      `median ${num(startMedian, 0)} ms, worst ${num(Math.max(...startup.server), 0)} ms (bare node baseline median ` +
      `${num(median(startup.baseline), 0)} ms)`,
    pass: startMedian < t.startupMs,
  });
  return results;
}
