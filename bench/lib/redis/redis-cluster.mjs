// The benchmark's Redis Cluster (issue 37): six of Debian's redis-server (three masters, a replica each) on free ports, and the
// comparison of the server on it with the same server on one standalone redis-server, in one run.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { freePort, makeTempDir, removeTempDir, sleep, spawnLogged, stopChild, tail } from '../children.mjs';
import { startRedisServer } from './redis-server.mjs';
import { markdownTable, pairedRatio, summarise } from '../report.mjs';
import { runRounds } from '../rounds.mjs';

const run = promisify(execFile);
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const START_TIMEOUT_MS = 30_000;
/** What the issue asks of the cluster: at least this share of the standalone Redis's requests a second. */
export const CLUSTER_TARGET = 0.8;

/**
 * Starts six cluster-mode redis-server through `prefix` (the pinning's taskset), joins them with redis-cli --cluster create and
 * waits until every node says cluster_state:ok. No snapshot, no append-only file, as the standalone one.
 * @returns {Promise<{ url: string, pids: number[], stop: () => Promise<void> }>}
 */
export async function startRedisCluster({ prefix = [] } = {}) {
  const home = makeTempDir('redis-cluster');
  const nodes = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => stopChild(node)));
    removeTempDir(home);
  };
  try {
    const ports = [];
    for (let i = 0; i < 6; i++) ports.push(await freePort());
    for (const port of ports) {
      const dir = join(home, String(port));
      mkdirSync(dir);
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--cluster-enabled', 'yes'];
      args.push('--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no');
      nodes.push(spawnLogged([...prefix, REDIS_SERVER, ...args, '--daemonize', 'no'], { cwd: dir, port, logFile: join(dir, 'redis.log') }));
    }
    await waitUntil(async () => (await Promise.all(ports.map((port) => cli(port, 'PING')))).every((reply) => reply === 'PONG'), 'PING');
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run(REDIS_CLI, ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], { timeout: START_TIMEOUT_MS });
    await waitUntil(
      async () => (await Promise.all(ports.map((port) => cli(port, 'CLUSTER', 'INFO')))).every((info) => info.includes('cluster_state:ok')),
      'cluster_state:ok on every node',
    );
    return { url: `redis-cluster://${addresses.join(',')}`, pids: nodes.map((node) => node.pid), stop };
  } catch (error) {
    const logs = nodes.map((node) => tail(node.logFile)).join('\n');
    await stop();
    throw new Error(`the Redis Cluster did not start: ${error instanceof Error ? error.message : String(error)}\n${logs}`);
  }
}

async function cli(port, ...args) {
  try {
    return (await run(REDIS_CLI, ['-p', String(port), ...args], { timeout: 2_000 })).stdout.trim();
  } catch {
    return '';
  }
}

async function waitUntil(check, what) {
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${START_TIMEOUT_MS} ms`);
    await sleep(100);
  }
}

/**
 * The server on a standalone redis-server (redis) and on a six-node Redis Cluster (cluster), each round on fresh servers and a
 * fresh store_prefix, alternating; the store cases only. The target: the cluster at least CLUSTER_TARGET of standalone.
 * The servers' CPU is measured, not Redis's (the cluster is six processes).
 */
export async function compareCluster({ cases, startServer, requireSameAnswers, pinning, options, log }) {
  log(`Redis Cluster: the server on one redis-server (redis) and on a six-node cluster (cluster), ${cases.map((c) => c.id).join(', ')}`);
  const standalone = await startRedisServer({ prefix: pinning.storePrefix });
  let cluster;
  try {
    cluster = await startRedisCluster({ prefix: pinning.storePrefix });
    log(`redis-server ${standalone.url} and cluster ${cluster.url} (${pinning.storeDescription})`);
    const raw = await runRounds({
      cases,
      options,
      log,
      startTargets: async () => {
        const prefix = `webui-bench-${randomBytes(4).toString('hex')}:`;
        const config = (url) => `[webui]\nstore = ${JSON.stringify(url)}\nstore_prefix = ${JSON.stringify(prefix)}\n`;
        const redis = await startServer('server', pinning, undefined, { config: config(standalone.url) });
        const onCluster = await startServer('server', pinning, undefined, { config: config(cluster.url) });
        return { redis, cluster: onCluster };
      },
      onStarted: (targets) => requireSameAnswers(targets, log, 'the server on the cluster does not answer as on one Redis'),
    });
    const summaries = Object.fromEntries(
      cases.map((c) => [c.id, { redis: summarise(raw[c.id].redis), cluster: summarise(raw[c.id].cluster) }]),
    );
    const ratios = Object.fromEntries(cases.map((c) => [c.id, pairedRatio(raw[c.id].cluster, raw[c.id].redis)]));
    const verdicts = cases.map((c) => ({
      target: `${c.label} on the cluster >= ${CLUSTER_TARGET} x standalone Redis`,
      measured: `${ratios[c.id].median.toFixed(2)} x`,
      pass: ratios[c.id].median >= CLUSTER_TARGET,
    }));
    log();
    log(
      `Redis Cluster (median of ${options.rounds} round(s) of ${options.duration} s, ${options.connections} connections; ratio = ` +
        `cluster / standalone req/s in each round, and its median)`,
    );
    log();
    log(clusterTable(cases, summaries, ratios));
    log();
    for (const v of verdicts) log(`  ${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`);
    log();
    return { cases, summaries, ratios, raw, verdicts, urls: { redis: standalone.url, cluster: cluster.url } };
  } finally {
    await cluster?.stop();
    await standalone.stop();
  }
}

function clusterTable(cases, summaries, ratios) {
  const header = [
    'Case',
    'Standalone req/s',
    'Cluster req/s',
    'Ratio',
    'Ratio per round',
    'Standalone p50 / p99 ms',
    'Cluster p50 / p99 ms',
  ];
  const num = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
  const rows = cases.map((c) => {
    const s = summaries[c.id].redis;
    const k = summaries[c.id].cluster;
    return [
      c.label,
      num(s.rps),
      num(k.rps),
      num(ratios[c.id].median, 2),
      ratios[c.id].perRound.map((x) => num(x, 2)).join(' '),
      `${num(s.p50, 2)} / ${num(s.p99, 2)}`,
      `${num(k.p50, 2)} / ${num(k.p99, 2)}`,
    ];
  });
  return markdownTable(header, rows, [false, true, true, true, true, true, true]);
}
