#!/usr/bin/env node
// `pnpm test:soak`: the slow proofs kept out of `npm test`, against the real built server.
//   1. bounded memory: apps/server/test/soak/memory.soak.test.ts with 50,000 and then 200,000 addresses;
//   2. crash safety at length: apps/server/test/faults/faults-crash.e2e.test.ts with 200 SIGKILLs (Node; 50 each for Bun and Deno),
//      and Redis Cluster at length: apps/server/test/soak/redis-cluster.soak.test.ts (a 200,000-address flood, each master frozen);
//   3. load: mixed traffic at a fixed rate (default 2,000 requests a second for 60 s): zero 5xx,
//      zero errors, zero lost updates, RSS flat (the last 5 s sample within +20 MB of the 15 s one);
//   4. sockets that never read: apps/server/test/soak/websocket-unread.soak.test.ts, three read-key clients flooding 20,000
//      subscribes each without reading: RSS +100 MB at most, /health within 100 ms throughout.
// Exits 1 when anything fails. See apps/server/soak/README.md.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startSoakServer } from './server.mjs';
import { runMixedTraffic, statusOf } from './traffic.mjs';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const VITEST = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));

const USAGE = `Usage: node apps/server/soak/run.mjs [options]   (or: pnpm test:soak -- [options])

  --duration S          seconds of mixed traffic (default 60)
  --rate R              requests a second (default 2000)
  --memory-addresses N,M  distinct addresses for each run of the memory proof (default 50000,200000; 0 skips it)
  --crash-kills N       SIGKILLs of the Node server in the crash proof (default 200; 0 skips it)
  --rss-slack MB        allowed RSS growth from the 15 s sample to the last (default 20)
  --unread-frames N     subscribes each of the three never-reading clients sends (default 20000; 0 skips it)
  --help
`;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    rate: { type: 'string', default: '2000' },
    'memory-addresses': { type: 'string', default: '50000,200000' },
    'crash-kills': { type: 'string', default: '200' },
    'rss-slack': { type: 'string', default: '20' },
    'unread-frames': { type: 'string', default: '20000' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const durationS = Number(values.duration);
const rate = Number(values.rate);
const memorySizes = values['memory-addresses']
  .split(',')
  .map(Number)
  .filter((n) => n !== 0);
const crashKills = Number(values['crash-kills']);
const rssSlackMb = Number(values['rss-slack']);
const unreadFrames = Number(values['unread-frames']);
const numbers = [
  ['duration', durationS],
  ['rate', rate],
  ['crash-kills', crashKills],
  ['rss-slack', rssSlackMb],
  ['unread-frames', unreadFrames],
  ...memorySizes.map((n) => ['memory-addresses', n]),
];
for (const [name, value] of numbers) {
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`soak: --${name} must be a number >= 0\n${USAGE}`);
    process.exit(2);
  }
}
if (durationS < 20) {
  process.stderr.write('soak: --duration must be at least 20 s: RSS flatness compares the 15 s sample with the last one\n');
  process.exit(2);
}

const failures = [];
const log = (line) => process.stdout.write(`${line}\n`);

// ---- 0. build ------------------------------------------------------------------------------
const build = spawnSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url)), '--quiet'], {
  stdio: 'inherit',
  cwd: ROOT,
});
if (build.status !== 0) {
  process.stderr.write('soak: the build failed\n');
  process.exit(1);
}

/** Runs vitest on `args` with `env`; echoes its lines starting with `prefix`; true when it passed. */
function vitest(args, env, prefix) {
  const run = spawnSync(process.execPath, [VITEST, 'run', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // eslint-disable-next-line no-control-regex
  const plain = `${run.stdout}`.replace(/\u001b\[[0-9;]*m/g, '');
  for (const line of plain.split('\n').filter((text) => text.startsWith(prefix))) log(`soak: ${line}`);
  if (run.status === 0) return true;
  process.stdout.write(run.stdout.slice(-4_000));
  process.stderr.write(run.stderr.slice(-4_000));
  return false;
}

// ---- 1. memory --------------------------------------------------------------------------------
const memoryResults = [];
for (const addresses of memorySizes) {
  log(`soak: memory: ${addresses} failed verifications from distinct addresses, 100000 /ws-token calls`);
  // The soak project (WEBUI_SOAK=1 in vitest.config.ts) is the only one that holds *.soak.test.ts.
  const passed = vitest(
    ['--project', 'soak', 'apps/server/test/soak/memory.soak.test.ts'],
    { WEBUI_SOAK: '1', WEBUI_MEMORY_ADDRESSES: String(addresses) },
    'memory:',
  );
  if (!passed) failures.push(`memory bound (${addresses} addresses)`);
  memoryResults.push(`${addresses}: ${passed ? 'ok' : 'FAILED'}`);
}
const memorySummary = memoryResults.length === 0 ? 'memory skipped' : `memory ${memoryResults.join(', ')}`;

// ---- 2. crash safety at length ----------------------------------------------------------------
let crashSummary = 'crash loop skipped';
if (crashKills > 0) {
  log(`soak: crash loop: ${crashKills} SIGKILLs of the Node server during writes, a quarter of that for Bun and Deno`);
  // Every project (node, e2e:bun, e2e:deno) runs the shared file, with more kills than npm test's.
  const passed = vitest(['apps/server/test/faults/faults-crash.e2e.test.ts'], { WEBUI_CRASH_KILLS: String(crashKills) }, 'crash loop:');
  if (!passed) failures.push('crash loop');
  crashSummary = `crash loop ${passed ? 'ok' : 'FAILED'} (${crashKills} kills)`;
}

// ---- 2b. Redis Cluster at length ----------------------------------------------------------------
log('soak: redis cluster: 200000 new addresses against a small cap, then every master frozen in turn under traffic');
const clusterPassed = vitest(
  ['--project', 'soak', 'apps/server/test/soak/redis-cluster.soak.test.ts'],
  { WEBUI_SOAK: '1' },
  'redis cluster:',
);
if (!clusterPassed) failures.push('redis cluster');
crashSummary += `, redis cluster ${clusterPassed ? 'ok' : 'FAILED'}`;

// ---- 2c. sockets that never read -------------------------------------------------------------
let unreadSummary = 'unread sockets skipped';
if (unreadFrames > 0) {
  log(`soak: unread sockets: 3 read-key clients x ${unreadFrames} subscribes, never reading; RSS and /health sampled throughout`);
  const passed = vitest(
    ['--project', 'soak', 'apps/server/test/soak/websocket-unread.soak.test.ts'],
    { WEBUI_SOAK: '1', WEBUI_UNREAD_FRAMES: String(unreadFrames) },
    'unread:',
  );
  if (!passed) failures.push('unread sockets');
  unreadSummary = `unread sockets ${passed ? 'ok' : 'FAILED'}`;
}

// ---- 3. mixed traffic -------------------------------------------------------------------------
log(`soak: load: ${rate} requests/s of mixed traffic for ${durationS} s`);
// Fresh client addresses per request, as the memory test: the global budget is set past the soak's volume so
// its bookkeeping runs on every attempt without slowing legitimate traffic down (it has its own e2e test).
const server = await startSoakServer(BUNDLE, '[webui]\ntrusted_proxies = ["127.0.0.1"]\nglobal_failure_budget = 1000000\n');
process.on('exit', () => server.kill());
const rss = [{ atS: 0, mb: server.rssMb() }];
let result;
try {
  result = await runMixedTraffic({
    server,
    rate,
    durationS,
    onTick: (elapsedS) => {
      if (elapsedS % 5 !== 0) return;
      const mb = server.rssMb();
      rss.push({ atS: elapsedS, mb });
      log(`soak:   ${String(elapsedS).padStart(3)} s  RSS ${mb.toFixed(0)} MB`);
    },
  });
} catch (error) {
  failures.push(`load run: ${error.message}`);
}
rss.push({ atS: durationS, mb: server.rssMb() });
const alive = server.alive();
const errorLines = [...server.errorLines];
const stopped = await server.stop();

// ---- report ---------------------------------------------------------------------------------
if (result) {
  const { tally, writes, issued, backlogSkips, seconds } = result;
  const statuses = tally.byStatus();
  const total = tally.total();
  const fiveXx = [...statuses].filter(([outcome]) => statusOf(outcome) >= 500).reduce((sum, [, n]) => sum + n, 0);
  const errors = statuses.get('error') ?? 0;
  log('soak: answers by kind:');
  for (const [kind, counts] of [...tally.byKind].sort()) {
    log(
      `soak:   ${kind.padEnd(11)} ${[...counts]
        .sort()
        .map(([outcome, n]) => `${outcome}: ${n}`)
        .join(', ')}`,
    );
  }
  log(
    `soak: by status: ${[...statuses]
      .sort()
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ')}`,
  );
  for (const sample of tally.samples) log(`soak:   ! ${sample}`);
  log(
    `soak: writes: ${writes.tokenAcks} token updates, ${writes.setupAcks} setup toggles acknowledged; lost updates: ${writes.lost.length}`,
  );
  for (const lost of writes.lost) log(`soak:   ! ${lost}`);

  const achieved = total / seconds;
  if (fiveXx > 0) failures.push(`${fiveXx} answers were 5xx`);
  if (errors > 0) failures.push(`${errors} requests failed without an answer`);
  if (writes.lost.length > 0) failures.push(`${writes.lost.length} lost updates`);
  if (writes.tokenAcks < durationS / 2) failures.push(`only ${writes.tokenAcks} token updates were acknowledged`);
  if (backlogSkips > issued * 0.02 || achieved < rate * 0.9)
    failures.push(`the rate was not sustained: ${achieved.toFixed(0)}/s answered, ${backlogSkips} requests skipped for a full backlog`);

  const at15 = rss.find((sample) => sample.atS >= 15) ?? rss[0];
  const last = rss[rss.length - 1];
  const growth = last.mb - at15.mb;
  if (growth > rssSlackMb) failures.push(`RSS grew ${growth.toFixed(0)} MB from 15 s to the end (allowed ${rssSlackMb})`);
  if (!alive) failures.push('the server died during the run');
  if (stopped.code !== 0) failures.push(`the server did not stop cleanly (code ${stopped.code}, signal ${stopped.signal})`);
  if (errorLines.length > 0) {
    failures.push(`the server logged ${errorLines.length} errors`);
    for (const line of errorLines.slice(0, 5)) log(`soak:   ! ${line}`);
  }

  log(
    `soak: ${total} requests in ${seconds.toFixed(0)} s (${achieved.toFixed(0)}/s), ${fiveXx} 5xx, ${errors} errors, ` +
      `${writes.lost.length} lost updates, ` +
      `RSS ${at15.mb.toFixed(0)} MB at 15 s -> ${last.mb.toFixed(0)} MB at the end (${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MB), ` +
      `${memorySummary}, ${crashSummary}, ${unreadSummary}, ` +
      `${failures.length === 0 ? 'PASS' : `FAIL: ${failures.join('; ')}`}`,
  );
} else {
  log(`soak: FAIL: ${failures.join('; ')}`);
}
process.exitCode = failures.length === 0 ? 0 : 1;
