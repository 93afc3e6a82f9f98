#!/usr/bin/env node
// `pnpm test:soak`: the slow proofs kept out of `npm test`, against the real built server.
//   1. bounded memory at full size: apps/server/test/memory.e2e.test.ts with 200,000 addresses;
//   2. load: mixed traffic at a fixed rate (default 2,000 requests a second for 60 s): zero 5xx,
//      zero errors, zero lost updates, RSS flat (the last 5 s sample within +20 MB of the 15 s one).
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
  --memory-addresses N  distinct addresses for the memory proof (default 200000; 0 skips it)
  --rss-slack MB        allowed RSS growth from the 15 s sample to the last (default 20)
  --help
`;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    rate: { type: 'string', default: '2000' },
    'memory-addresses': { type: 'string', default: '200000' },
    'rss-slack': { type: 'string', default: '20' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const durationS = Number(values.duration);
const rate = Number(values.rate);
const memoryAddresses = Number(values['memory-addresses']);
const rssSlackMb = Number(values['rss-slack']);
for (const [name, value] of Object.entries({ duration: durationS, rate, 'memory-addresses': memoryAddresses, 'rss-slack': rssSlackMb })) {
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
const build = spawnSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url)), '--quiet'], { stdio: 'inherit', cwd: ROOT });
if (build.status !== 0) {
  process.stderr.write('soak: the build failed\n');
  process.exit(1);
}

// ---- 1. memory at full size -----------------------------------------------------------------
let memorySummary = 'memory skipped';
if (memoryAddresses > 0) {
  log(`soak: memory: ${memoryAddresses} failed verifications from distinct addresses, 100000 /ws-token calls`);
  const run = spawnSync(process.execPath, [VITEST, 'run', '--project', 'node', 'apps/server/test/memory.e2e.test.ts'], {
    cwd: ROOT,
    env: { ...process.env, WEBUI_MEMORY_ADDRESSES: String(memoryAddresses), FORCE_COLOR: '0' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // eslint-disable-next-line no-control-regex
  const plain = `${run.stdout}`.replace(/\u001b\[[0-9;]*m/g, '');
  const lines = plain.split('\n').filter((line) => line.startsWith('memory:'));
  for (const line of lines) log(`soak: ${line}`);
  if (run.status !== 0) {
    process.stdout.write(run.stdout.slice(-4_000));
    process.stderr.write(run.stderr.slice(-4_000));
    failures.push('memory bound');
  }
  memorySummary = `memory ${run.status === 0 ? 'ok' : 'FAILED'} (${memoryAddresses} addresses)`;
}

// ---- 2. mixed traffic -------------------------------------------------------------------------
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
    log(`soak:   ${kind.padEnd(11)} ${[...counts].sort().map(([outcome, n]) => `${outcome}: ${n}`).join(', ')}`);
  }
  log(`soak: by status: ${[...statuses].sort().map(([status, n]) => `${status}: ${n}`).join(', ')}`);
  for (const sample of tally.samples) log(`soak:   ! ${sample}`);
  log(`soak: writes: ${writes.tokenAcks} token updates, ${writes.setupAcks} setup toggles acknowledged; lost updates: ${writes.lost.length}`);
  for (const lost of writes.lost) log(`soak:   ! ${lost}`);

  const achieved = total / seconds;
  if (fiveXx > 0) failures.push(`${fiveXx} answers were 5xx`);
  if (errors > 0) failures.push(`${errors} requests failed without an answer`);
  if (writes.lost.length > 0) failures.push(`${writes.lost.length} lost updates`);
  if (writes.tokenAcks < durationS / 2) failures.push(`only ${writes.tokenAcks} token updates were acknowledged`);
  if (backlogSkips > issued * 0.02 || achieved < rate * 0.9) failures.push(`the rate was not sustained: ${achieved.toFixed(0)}/s answered, ${backlogSkips} requests skipped for a full backlog`);

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
    `soak: ${total} requests in ${seconds.toFixed(0)} s (${achieved.toFixed(0)}/s), ${fiveXx} 5xx, ${errors} errors, ${writes.lost.length} lost updates, ` +
      `RSS ${at15.mb.toFixed(0)} MB at 15 s -> ${last.mb.toFixed(0)} MB at the end (${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MB), ${memorySummary}, ` +
      `${failures.length === 0 ? 'PASS' : `FAIL: ${failures.join('; ')}`}`,
  );
} else {
  log(`soak: FAIL: ${failures.join('; ')}`);
}
process.exitCode = failures.length === 0 ? 0 : 1;
