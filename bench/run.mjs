#!/usr/bin/env node
// `pnpm bench`: the real server (its dist bundle) against a bare node:http + ws baseline doing the
// same work, driven one after the other in alternating order, round after round; then the same server
// on its JSON file and on Redis, the same way. See bench/README.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import {
  freePort,
  httpGet,
  httpPostJson,
  makeTempDir,
  removeTempDir,
  rssBytes,
  sleep,
  spawnClean,
  stopChild,
  waitHealthy,
} from './lib/children.mjs';
import { pinCpus } from './lib/cpu-pinning.mjs';
import { runHttpLoad } from './lib/load/http-load.mjs';
import { hasWrk, runWrkLoad } from './lib/load/wrk-load.mjs';
import { redisServerMissing, startRedisServer } from './lib/redis/redis-server.mjs';
import { evaluateTargets, pairedRatio, resultsTable, storesTable, summarise } from './lib/report.mjs';
import { runRounds } from './lib/rounds.mjs';
import { median } from './lib/stats.mjs';
import { runWsHandshakes } from './lib/load/ws-load.mjs';
import { compareGateway, GATEWAY_CASE_ID, GATEWAY_PROXIES } from './lib/gateway/gateway.mjs';
import { nginxMissing } from './lib/gateway/nginx-proxy.mjs';
import { compareCluster } from './lib/redis/redis-cluster.mjs';
import { runtimeCommand } from './lib/runtimes.mjs';
import { compareOriginalBackend, ORIGINAL_CASE_ID, originalBackendMissing } from './lib/original-backend.mjs';
import { compareTls, TLS_CASE_ID } from './lib/tls.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE_SCRIPT = join(ROOT, 'bench/baseline-server.mjs');
const PREFIX = '/api/webui';
const HEALTH = `${PREFIX}/health`;
const MB = 1024 * 1024;
// The cases whose request path reads the store (the ban check, and for a login the success bookkeeping).
const STORE_CASES = ['check-valid', 'verify'];
const STORES = ['json', 'redis', 'cluster'];

const USAGE = `Usage: node bench/run.mjs [options]   (or: pnpm bench -- [options])

  --duration S      seconds per case, server and round (default 10)
  --rounds N        rounds, each on freshly started servers; each runs every case on both, order alternating (default 3)
  --slices N        within a round, a case runs on the two servers in N alternating slices of S/N
                    seconds each, A B B A A B ... (default: 1 s slices; 1 in --smoke)
  --connections C   concurrent connections / WebSocket workers (default 64, at most 512)
  --smoke           1 s, 1 round; targets not enforced, exit 1 if any request errors or is non-2xx
  --warmup S        unrecorded seconds per case and server before each round (default 2; 0 in --smoke)
  --cases IDS       only these cases, comma-separated: check-valid, check-none, check-query, verify, ws-token, health, ws-handshake,
                    ${GATEWAY_CASE_ID} (the gateway comparison below), ${ORIGINAL_CASE_ID} (with --original-backend),
                    ${TLS_CASE_ID} (GET /auth/check over HTTPS against a bare node:https server, target >= 0.9)
  --load NAME       the HTTP load generator: autocannon (default) or wrk (Debian's package; in C, so it
                    leaves more of a small machine to the server)
  --stores LIST     after the server/baseline comparison, the same server on each store, alternating:
                    json,redis,cluster (default; redis-server is started by the bench), json,redis or json (Redis left out);
                    cluster: then the server on a six-node Redis Cluster against one redis-server (target >= 0.8);
                    cases ${STORE_CASES.join(' and ')} only
  --gateway LIST    last, an authenticated GET forwarded to an upstream (the bench's node:http one) against the same
                    upstream reached directly, alternating, and the memory while 50 MB stream through the server; LIST
                    is the setups in front of the upstream, server and any of: nginx (nginx-light as a plain reverse
                    proxy), bare (a 15-line node:http forwarder), fastify (@fastify/http-proxy), http-proxy-3, bun and
                    deno (this server on apps/bun and apps/deno). Default: ${GATEWAY_PROXIES.join(',')}
  --upstream-cpu W  where that upstream runs: load (default: with the load generator, in every setup) or server
                    (on the servers' CPU, sharing it with the proxy measured)
  --original-backend DIR   then the bot's original backend, started with DIR/start.sh (DIR: its tools directory, set up
                    as its README says): its lightest route (${ORIGINAL_CASE_ID}) directly against the same through this
                    server with [webui.upstream] pointing at it (target >= 0.95 x directly). Left out without this option
  --json FILE       also write every measurement to FILE
  --no-build        do not run apps/server/build.mjs first
  --baseline-server FILE   another build of the server (its dist/main.js) in the baseline's place:
                    a before/after comparison of two commits in one run (targets then compare the two builds)
  --no-pin          do not pin the servers and the load generator to separate CPUs (taskset)
  -h, --help        this text`;

main().catch((error) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

async function main() {
  const options = parseOptions();
  const log = (line = '') => process.stdout.write(`${line}\n`);

  if (options.build) {
    const built = spawnSync(process.execPath, [join(ROOT, 'apps/server/build.mjs'), '--quiet'], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error(`apps/server/build.mjs failed with exit code ${built.status}`);
  }

  const machine = describeMachine();
  const pinning = pinCpus(options.pin);
  log(
    `WebUI API benchmark${options.smoke ? ' (smoke)' : ''}: ${options.rounds} round(s) x ${options.duration} s in ${options.slices} ` +
      `alternating slice(s), ${options.connections} connections, HTTP load by ${options.loadName}`,
  );
  log(`machine: ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGb} GB, Linux ${machine.kernel}, Node ${machine.node}`);
  log(`CPUs: ${pinning.description}`);
  warnIfBusy(log, 'at start');
  log();

  const main = await compareWithBaseline({ pinning, options, log });
  const failures = main ? [...main.failures] : [];
  const stores = await compareStores({ cases: main?.cases ?? [], pinning, options, log });
  if (stores) failures.push(...requestFailures(stores.cases, stores.summaries));
  const storeCases = (main?.cases ?? []).filter((c) => STORE_CASES.includes(c.id));
  const cluster =
    options.stores.includes('cluster') && storeCases.length > 0
      ? await compareCluster({ cases: storeCases, startServer, requireSameAnswers, pinning, options, log })
      : null;
  if (cluster) failures.push(...requestFailures(cluster.cases, cluster.summaries));
  const gateway = options.gateway.length > 0 ? await compareGateway({ startServer, pinning, options, log }) : null;
  if (gateway) failures.push(...gateway.failures);
  const original = options.originalBackend
    ? await compareOriginalBackend({ dir: options.originalBackend, startServer, pinning, options, log })
    : null;
  if (original) failures.push(...original.failures);
  const tls = options.tls ? await compareTls({ pinning, options, log }) : null;
  if (tls) failures.push(...tls.failures);
  machine.loadAverageAtEnd = loadavg()[0];
  warnIfBusy(log, 'at the end');

  if (options.json) {
    const measured = {
      machine,
      pinning: pinning.description,
      options,
      ...(main
        ? { startup: main.startup, idle: main.idle, summaries: main.summaries, ratios: main.ratios, runs: main.raw, targets: main.verdicts }
        : {}),
      ...(gateway ? { gateway: { ...gateway, failures: undefined } } : {}),
      ...(original ? { originalBackend: { ...original, failures: undefined } } : {}),
      ...(tls ? { tls: { ...tls, failures: undefined } } : {}),
      ...(stores ? { stores: { redis: stores.redis, summaries: stores.summaries, ratios: stores.ratios, runs: stores.raw } } : {}),
      ...(cluster
        ? {
            cluster: {
              urls: cluster.urls,
              summaries: cluster.summaries,
              ratios: cluster.ratios,
              runs: cluster.raw,
              targets: cluster.verdicts,
            },
          }
        : {}),
    };
    writeFileSync(options.json, `${JSON.stringify(measured, null, 2)}\n`);
    log(`wrote ${options.json}`);
  }

  if (failures.length > 0) {
    for (const failure of failures) log(`ERROR ${failure}`);
    log('bench: FAILED: some requests errored or answered non-2xx');
    process.exit(1);
  }
  log(
    options.smoke
      ? `bench smoke: OK (every case ran on every target${stores ? ', both stores' : ''}${cluster ? ', the cluster' : ''}` +
          `${gateway ? ', every gateway setup' : ''}${original ? ', the original backend' : ''}${tls ? ', HTTPS' : ''} ` +
          'without an error or a non-2xx answer)'
      : 'bench: done',
  );
}

/**
 * The server against the bare baseline (or another build), every selected case: startup times, idle RSS, rounds,
 * the results table and the targets. Null when --cases selects none of these cases.
 */
async function compareWithBaseline({ pinning, options, log }) {
  const cases = defineCases().filter((c) => options.cases === undefined || options.cases.includes(c.id));
  if (cases.length === 0) return null;
  // Startup: spawn to first 200 on /health, a few times each, after the build.
  const startupRuns = options.smoke ? 2 : 5;
  const startup = { server: [], baseline: [] };
  for (let i = 0; i < startupRuns; i++) {
    for (const kind of /** @type {const} */ (['server', 'baseline'])) {
      const started = await startServer(kind, pinning, options.baselineServer);
      startup[kind].push(started.startupMs);
      await started.stop();
    }
  }
  log(
    `startup to first healthy answer: server median ${Math.round(median(startup.server))} ms ` +
      `(${startup.server.map(Math.round).join(', ')}), baseline median ${Math.round(median(startup.baseline))} ms`,
  );

  /** @type {{server: number, baseline: number, afterLoad?: {server: number, baseline: number}}} */
  let idle = { server: NaN, baseline: NaN };
  let tokenFileBytes = NaN;
  const raw = await runRounds({
    cases,
    options,
    log,
    startTargets: async () => ({
      server: await startServer('server', pinning, options.baselineServer),
      baseline: await startServer('baseline', pinning, options.baselineServer),
    }),
    async onStarted(targets, round) {
      if (round === 0) {
        await sleep(1_000);
        idle = { server: rssBytes(targets.server.child.pid) ?? NaN, baseline: rssBytes(targets.baseline.child.pid) ?? NaN };
        tokenFileBytes = targets.server.tokenFileBytes;
        log(`idle RSS: server ${(idle.server / MB).toFixed(1)} MB, baseline ${(idle.baseline / MB).toFixed(1)} MB`);
        log();
      }
      await requireSameAnswers(targets, log, 'the servers do not answer as the benchmark expects');
    },
    async onFinished(targets, round) {
      if (round !== options.rounds - 1) return;
      // Idle again: does the memory taken under load come back?
      await sleep(options.smoke ? 500 : 5_000);
      idle.afterLoad = { server: rssBytes(targets.server.child.pid) ?? NaN, baseline: rssBytes(targets.baseline.child.pid) ?? NaN };
      log(
        `idle RSS ${options.smoke ? 0.5 : 5} s after the last run: server ${(idle.afterLoad.server / MB).toFixed(1)} MB, baseline ` +
          `${(idle.afterLoad.baseline / MB).toFixed(1)} MB`,
      );
    },
  });

  const summaries = Object.fromEntries(
    cases.map((c) => [c.id, { server: summarise(raw[c.id].server), baseline: summarise(raw[c.id].baseline) }]),
  );
  const ratios = Object.fromEntries(cases.map((c) => [c.id, pairedRatio(raw[c.id].server, raw[c.id].baseline)]));
  log();
  log(
    `Results (median of ${options.rounds} round(s) of ${options.duration} s, ${options.connections} connections; RSS = highest after a ` +
      `round; ratio = server / baseline req/s in each round, and its median)`,
  );
  log();
  log(resultsTable(cases, summaries, ratios));
  log();

  const verdicts = evaluateTargets({ summaries, ratios, startup, idle, connections: options.connections, tokenFileBytes });

  if (options.smoke) {
    log('Targets (smoke: reported, not enforced; 1 s runs say little about speed)');
  } else {
    log('Targets (reported; these machines are noisy, so a FAIL does not change the exit code)');
  }
  for (const v of verdicts) log(`  ${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}${v.note ? ` (${v.note})` : ''}`);
  log();
  return { cases, startup, idle, summaries, ratios, raw, verdicts, failures: requestFailures(cases, summaries) };
}

/** Every case and target that saw an error, a non-2xx answer or no request at all; the exit code follows it, the timings never do. */
function requestFailures(cases, summaries) {
  return cases.flatMap((c) =>
    Object.entries(summaries[c.id]).flatMap(([kind, s]) =>
      s.non2xx > 0 || s.errors > 0 || s.requests === 0
        ? [`${c.label} on the ${kind}: ${s.requests} completed, ${s.non2xx} non-2xx, ${s.errors} errors`]
        : [],
    ),
  );
}

/**
 * The same server on the JSON file and on Redis (its own redis-server, a fresh store_prefix), in the
 * same run, alternating; only the cases whose request path reads the store. Reported, never a target:
 * a store across a socket is a network hop, its cost depends on where Redis runs.
 * Null when --stores leaves Redis out or --cases leaves no store case.
 */
async function compareStores({ cases, pinning, options, log }) {
  const storeCases = cases.filter((c) => STORE_CASES.includes(c.id));
  if (!options.stores.includes('redis') || storeCases.length === 0) return null;
  log(`Stores: the server on data/webui.json (json) and on Redis (redis), ${storeCases.map((c) => c.id).join(', ')}`);
  const redisServer = await startRedisServer({ prefix: pinning.storePrefix });
  log(`redis-server ${redisServer.url} (${pinning.storeDescription}), a fresh store_prefix webui-bench-<random>: for each round's server`);
  const prefixes = [];
  try {
    const raw = await runRounds({
      cases: storeCases,
      options,
      log,
      startTargets: async () => {
        // Each round's server starts on an empty store, as its JSON twin does.
        const prefix = `webui-bench-${randomBytes(4).toString('hex')}:`;
        prefixes.push(prefix);
        const json = await startServer('server', pinning);
        const config = `[webui]\nstore = ${JSON.stringify(redisServer.url)}\nstore_prefix = ${JSON.stringify(prefix)}\n`;
        const redis = await startServer('server', pinning, undefined, { config });
        return { json, redis: { ...redis, storePid: redisServer.child.pid } };
      },
      onStarted: (targets) => requireSameAnswers(targets, log, 'the server on Redis does not answer as on the JSON file'),
    });
    const summaries = Object.fromEntries(
      storeCases.map((c) => [c.id, { json: summarise(raw[c.id].json), redis: summarise(raw[c.id].redis) }]),
    );
    const ratios = Object.fromEntries(storeCases.map((c) => [c.id, pairedRatio(raw[c.id].redis, raw[c.id].json)]));
    log();
    log(
      `Stores (median of ${options.rounds} round(s) of ${options.duration} s, ${options.connections} connections; ratio = Redis / JSON ` +
        `req/s in each round, and its median; reported, no target)`,
    );
    log();
    log(storesTable(storeCases, summaries, ratios));
    log();
    return { cases: storeCases, summaries, ratios, raw, redis: { url: redisServer.url, prefixes, cpus: pinning.storeDescription } };
  } finally {
    await redisServer.stop();
  }
}

function parseOptions() {
  // `pnpm bench -- --smoke` may hand the separator through.
  const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: 'string' },
      rounds: { type: 'string' },
      slices: { type: 'string' },
      connections: { type: 'string', default: '64' },
      smoke: { type: 'boolean', default: false },
      json: { type: 'string' },
      cases: { type: 'string' },
      warmup: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'baseline-server': { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      load: { type: 'string', default: 'autocannon' },
      stores: { type: 'string', default: STORES.join(',') },
      gateway: { type: 'string', default: GATEWAY_PROXIES.join(',') },
      'upstream-cpu': { type: 'string', default: 'load' },
      'original-backend': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const positive = (name, text) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) {
      process.stderr.write(`bench: --${name} needs a positive number, got ${JSON.stringify(text)}\n${USAGE}\n`);
      process.exit(2);
    }
    return n;
  };
  const nonNegative = (name, text) => (Number(text) === 0 ? 0 : positive(name, text));
  const smoke = values.smoke;
  const knownCases = [...defineCases().map((c) => c.id), GATEWAY_CASE_ID, ORIGINAL_CASE_ID, TLS_CASE_ID];
  const cases = values.cases?.split(',').map((id) => id.trim());
  const unknownCase = cases?.find((id) => !knownCases.includes(id));
  if (unknownCase !== undefined) {
    process.stderr.write(`bench: --cases: no case ${JSON.stringify(unknownCase)}; the cases are ${knownCases.join(', ')}\n${USAGE}\n`);
    process.exit(2);
  }
  // Every load comes from 127.0.0.1: past the server's max_connections_per_client (512) its connections would be reset.
  if (Number(values.connections) > 512) {
    process.stderr.write(
      `bench: --connections ${values.connections}: the server resets one address's connections past 512 (max_connections_per_client)\n`,
    );
    process.exit(2);
  }
  if (values.load !== 'autocannon' && values.load !== 'wrk') {
    process.stderr.write(`bench: --load is autocannon or wrk, got ${JSON.stringify(values.load)}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.load === 'wrk' && !hasWrk()) {
    process.stderr.write('bench: --load wrk needs wrk on the PATH (Debian: apt-get install -y wrk)\n');
    process.exit(2);
  }
  const duration = positive('duration', values.duration ?? (smoke ? '1' : '10'));
  // One-second slices by default: short enough to see the same machine, long enough for wrk (whole seconds).
  const slices = Math.round(positive('slices', values.slices ?? (smoke ? '1' : String(Math.max(1, Math.floor(duration))))));
  if (slices > 1 && duration / slices < 1) {
    process.stderr.write(`bench: --slices ${slices} would make slices shorter than 1 s of --duration ${duration}\n${USAGE}\n`);
    process.exit(2);
  }
  const stores = values.stores.split(',').map((name) => name.trim());
  if (
    !stores.includes('json') ||
    stores.some((name) => !STORES.includes(name)) ||
    (stores.includes('cluster') && !stores.includes('redis'))
  ) {
    process.stderr.write(
      `bench: --stores is json,redis,cluster, json,redis or json (the JSON file is what Redis is compared with, one Redis what the ` +
        `cluster is compared with), got ` +
        `${JSON.stringify(values.stores)}\n${USAGE}\n`,
    );
    process.exit(2);
  }
  const gateway = values.gateway.split(',').map((name) => name.trim());
  if (!gateway.includes('server') || gateway.some((name) => !GATEWAY_PROXIES.includes(name))) {
    process.stderr.write(
      `bench: --gateway is server and any of ${GATEWAY_PROXIES.filter((name) => name !== 'server').join(', ')}, ` +
        `got ${JSON.stringify(values.gateway)}\n${USAGE}\n`,
    );
    process.exit(2);
  }
  if (values['upstream-cpu'] !== 'load' && values['upstream-cpu'] !== 'server') {
    process.stderr.write(`bench: --upstream-cpu is load or server, got ${JSON.stringify(values['upstream-cpu'])}\n${USAGE}\n`);
    process.exit(2);
  }
  // --cases without the gateway leaves its comparison out.
  const runGateway = cases === undefined || cases.includes(GATEWAY_CASE_ID);
  const noNginx = runGateway && gateway.includes('nginx') ? nginxMissing() : null;
  if (noNginx !== null) {
    process.stderr.write(`bench: the gateway comparison's nginx: ${noNginx}; or leave it out of --gateway\n`);
    process.exit(2);
  }
  // The original backend runs only when asked for, and then it must be there.
  const originalDir = values['original-backend'] === undefined ? undefined : resolve(values['original-backend']);
  if (cases?.includes(ORIGINAL_CASE_ID) && originalDir === undefined) {
    process.stderr.write(`bench: --cases ${ORIGINAL_CASE_ID} needs --original-backend DIR\n${USAGE}\n`);
    process.exit(2);
  }
  const runOriginal = originalDir !== undefined && (cases === undefined || cases.includes(ORIGINAL_CASE_ID));
  const noOriginal = runOriginal ? originalBackendMissing(originalDir) : null;
  if (noOriginal !== null) {
    process.stderr.write(`bench: --original-backend: ${noOriginal}\n`);
    process.exit(2);
  }
  const missing = stores.includes('redis') ? redisServerMissing() : null;
  if (missing !== null) {
    process.stderr.write(`bench: the Redis store needs redis-server: ${missing}; or leave it out with --stores json\n`);
    process.exit(2);
  }
  return {
    cases,
    smoke,
    stores,
    gateway: runGateway ? gateway : [],
    upstreamCpu: values['upstream-cpu'],
    originalBackend: runOriginal ? originalDir : undefined,
    tls: cases === undefined || cases.includes(TLS_CASE_ID),
    httpLoad: values.load === 'wrk' ? runWrkLoad : runHttpLoad,
    loadName: values.load,
    duration,
    rounds: Math.round(positive('rounds', values.rounds ?? (smoke ? '1' : '3'))),
    slices,
    connections: Math.round(positive('connections', values.connections)),
    warmup: nonNegative('warmup', values.warmup ?? (smoke ? '0' : '2')),
    json: values.json,
    build: !values['no-build'],
    pin: !values['no-pin'],
    // The servers run in temp directories: a relative path means one from where the benchmark was started.
    baselineServer: values['baseline-server'] === undefined ? undefined : resolve(values['baseline-server']),
  };
}

/** Other processes competing for the CPUs make every number noisy; say so next to the results. */
function warnIfBusy(log, when) {
  const [oneMinute] = loadavg();
  // All the machine's CPUs: this process may be pinned to fewer.
  const cores = cpus().length;
  if (oneMinute > cores * 0.5)
    log(
      `note: load average ${oneMinute.toFixed(1)} on ${cores} CPUs ${when}: other processes compete with the benchmark, numbers are noisy`,
    );
}

function describeMachine() {
  const list = cpus();
  return {
    cpus: availableParallelism(),
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    kernel: release(),
    node: process.version,
    loadAverageAtStart: loadavg()[0],
    /** @type {number | undefined} */
    loadAverageAtEnd: undefined,
  };
}

/**
 * Starts the real server (dist bundle) or the baseline in a fresh temp data dir.
 * The real server makes its own temporary token; the baseline gets one written in the same file format.
 * With `setup`, the real server reads `setup.config` as its config file (as an operator would: a Redis store, an
 * upstream) with `setup.env` added to its environment, on `setup.runtime` (apps/bun or apps/deno; the Node bundle when absent).
 * @param {{ config: string, env?: Record<string, string>, runtime?: 'bun' | 'deno' }} [setup]
 */
async function startServer(kind, pinning, baselineServer, setup) {
  const home = makeTempDir(kind);
  const dataDir = join(home, 'data');
  const port = await freePort();
  const logFile = join(home, 'output.log');
  const args = ['--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir];
  let commandLine;
  if (kind === 'baseline' && baselineServer) {
    commandLine = [process.execPath, baselineServer, ...args];
  } else if (kind === 'baseline') {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const record = { access_token: randomBytes(32).toString('hex'), token_source: 'temporary', first_setup_completed: false };
    writeFileSync(join(dataDir, 'webui.json'), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    commandLine = [process.execPath, BASELINE_SCRIPT, '--port', String(port), '--data-dir', dataDir];
  } else {
    const configFile = setup ? join(home, 'webui.toml') : undefined;
    if (configFile) {
      writeFileSync(configFile, setup.config);
      args.push('--config', configFile);
    }
    const variables = Object.keys(setup?.env ?? {});
    commandLine = runtimeCommand(setup?.runtime ?? 'node', { args, dataDir, configFile, variables });
  }
  const startedAt = performance.now();
  const child = spawnClean(commandLine, { cwd: home, port, logFile, env: setup?.env, prefix: pinning.prefix });
  // Bun and Deno start from the TypeScript sources: slower on a busy machine than the Node bundle.
  const startupMs = await waitHealthy(child, HEALTH, startedAt, setup?.runtime === undefined ? undefined : 60_000);
  // On Redis there is no webui.json.
  const tokenPath = join(dataDir, 'webui.json');
  const tokenFile = existsSync(tokenPath) ? readFileSync(tokenPath, 'utf8') : null;
  const token = tokenFile === null ? temporaryTokenLogged(logFile) : JSON.parse(tokenFile).access_token;
  return {
    kind,
    child,
    port,
    token,
    tokenFileBytes: tokenFile === null ? NaN : Buffer.byteLength(tokenFile),
    cookie: `bot_session=${token}`,
    startupMs,
    async stop() {
      await stopChild(child);
      removeTempDir(home);
    },
  };
}

/** The temporary token from the server's startup log line (JSON, `temporary_token`): on Redis there is no webui.json to read it from. */
function temporaryTokenLogged(logFile) {
  const text = readFileSync(logFile, 'utf8');
  for (const line of text.split('\n')) {
    if (!line.includes('"temporary_token"')) continue;
    const token = JSON.parse(line).temporary_token;
    if (typeof token === 'string') return token;
  }
  throw new Error(`the server logged no temporary_token at startup; its output:\n${text.slice(-2000)}`);
}

/** The cases; each `run` drives one server once. */
function defineCases() {
  const url = (target, path) => `http://127.0.0.1:${target.port}${PREFIX}${path}`;
  return [
    {
      id: 'check-valid',
      label: 'GET /auth/check (valid cookie)',
      run: (target, o) =>
        o.httpLoad({
          url: url(target, '/auth/check'),
          headers: { cookie: target.cookie },
          connections: o.connections,
          duration: o.duration,
        }),
    },
    {
      id: 'check-none',
      label: 'GET /auth/check (no cookie)',
      run: (target, o) => o.httpLoad({ url: url(target, '/auth/check'), connections: o.connections, duration: o.duration }),
    },
    {
      // A query string keeps Node's /auth/check fast path out: the same answer through the whole Hono app.
      id: 'check-query',
      label: 'GET /auth/check?x=1 (valid cookie)',
      run: (target, o) =>
        o.httpLoad({
          url: url(target, '/auth/check?x=1'),
          headers: { cookie: target.cookie },
          connections: o.connections,
          duration: o.duration,
        }),
    },
    {
      id: 'verify',
      label: 'POST /auth/verify (right token)',
      run: (target, o) =>
        o.httpLoad({
          url: url(target, '/auth/verify'),
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: target.token }),
          connections: o.connections,
          duration: o.duration,
        }),
    },
    {
      id: 'ws-token',
      label: 'GET /ws-token',
      run: (target, o) =>
        o.httpLoad({ url: url(target, '/ws-token'), headers: { cookie: target.cookie }, connections: o.connections, duration: o.duration }),
    },
    {
      id: 'health',
      label: 'GET /health',
      run: (target, o) => o.httpLoad({ url: url(target, '/health'), connections: o.connections, duration: o.duration }),
    },
    {
      id: 'ws-handshake',
      label: 'WebSocket handshake (ticket+ready)',
      run: (target, o) => runWsHandshakes({ port: target.port, cookie: target.cookie, connections: o.connections, duration: o.duration }),
    },
  ];
}

/** Stops the benchmark, saying why, when the preflight finds the targets answering differently. */
async function requireSameAnswers(targets, log, why) {
  const problems = await preflight(targets);
  if (problems.length === 0) return;
  for (const problem of problems) log(`PREFLIGHT FAIL ${problem}`);
  throw new Error(`${why}; nothing was measured`);
}

/**
 * One request per case to each server before measuring: both must answer 2xx with the same JSON
 * (tickets and connection ids aside), or the comparison would be meaningless.
 */
async function preflight(targets) {
  const problems = [];
  const ticketless = (body) =>
    JSON.stringify(body, (key, value) => (key === 'token' || key === 'connection_id' || key === 'timestamp' ? '*' : value));
  const answers = {};
  const kinds = Object.keys(targets);
  const [first, second] = kinds;
  for (const kind of kinds) {
    const t = targets[kind];
    answers[kind] = {
      'check-valid': await httpGet(t.port, `${PREFIX}/auth/check`, { cookie: t.cookie }),
      'check-none': await httpGet(t.port, `${PREFIX}/auth/check`),
      'check-query': await httpGet(t.port, `${PREFIX}/auth/check?x=1`, { cookie: t.cookie }),
      health: await httpGet(t.port, `${PREFIX}/health`),
      verify: await httpPostJson(t.port, `${PREFIX}/auth/verify`, { token: t.token }),
      'ws-token': await httpGet(t.port, `${PREFIX}/ws-token`, { cookie: t.cookie }),
    };
  }
  const expected = {
    'check-valid': { authenticated: true, token_source: 'temporary', requires_custom_token: true },
    'check-none': { authenticated: false },
    'check-query': { authenticated: true, token_source: 'temporary', requires_custom_token: true },
  };
  for (const [id, want] of Object.entries(expected)) {
    for (const kind of kinds) {
      const got = answers[kind][id];
      if (got.status !== 200 || !isDeepStrictEqual(JSON.parse(got.body), want))
        problems.push(`${id} on the ${kind}: ${got.status} ${got.body}`);
    }
  }
  for (const id of ['verify', 'ws-token', 'health']) {
    const a = answers[first][id];
    const b = answers[second][id];
    if (a.status !== 200 || b.status !== 200 || ticketless(JSON.parse(a.body)) !== ticketless(JSON.parse(b.body))) {
      problems.push(`${id}: ${first} ${a.status} ${a.body} vs ${second} ${b.status} ${b.body}`);
    }
  }
  for (const kind of kinds) {
    if (!answers[kind].verify.headers['set-cookie']?.[0]?.startsWith('bot_session='))
      problems.push(`verify on the ${kind} set no bot_session cookie`);
    const ticket = JSON.parse(answers[kind]['ws-token'].body).token;
    if (typeof ticket !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(ticket)) problems.push(`ws-token on the ${kind} gave ${ticket}`);
  }
  for (const kind of kinds) {
    const one = await runWsHandshakes({ port: targets[kind].port, cookie: targets[kind].cookie, connections: 1, duration: 0.001 });
    if (one.requests !== 1) problems.push(`WebSocket handshake on the ${kind} failed: ${one.firstError ?? 'no handshake completed'}`);
  }
  return problems;
}
