import { execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { vi } from 'vitest';
import { freeClusterNodePort } from './free-port.js';
import { launchRedis, redisServerBinary, stopProcess } from './redis-process.js';

/** A Redis Cluster of the tests' own: three masters with a replica each, on free ports of 127.0.0.1, in one temporary directory. */
export interface RedisClusterHandle {
  /** redis-cluster://127.0.0.1:<port>,… naming every node. */
  url: string;
  /** Every node's port, masters first as created. */
  ports: number[];
  dir: string;
  /** The ports of the nodes that are masters now, as the cluster sees it. */
  masters(): Promise<number[]>;
  /** The port of the master serving `key` now. */
  masterOf(key: string): Promise<number>;
  /** The port of the replica of the master on `masterPort`. */
  replicaOf(masterPort: number): Promise<number>;
  /** A planned CLUSTER FAILOVER run on the master's replica: resolves with the replica's port once it is master and the cluster healthy. */
  failover(masterPort: number): Promise<number>;
  /** Resolves once the master's replica has every write the master had taken when this was called. */
  replicated(masterPort: number, timeoutMs?: number): Promise<void>;
  /** SIGSTOP of one node: its sockets stay open, it answers nothing (the hard case for a client). */
  freeze(port: number): void;
  /** SIGCONT of a frozen node. */
  thaw(port: number): void;
  /** Resolves with the replica's port once the frozen master's replica has been promoted and every slot is served again. */
  promotionOf(frozenMasterPort: number, timeoutMs?: number): Promise<number>;
  /** Every node answers and agrees that the cluster is ok (a thawed master has rejoined, as a replica). */
  healthy(timeoutMs?: number): Promise<void>;
  /** Kills every node (a frozen one too) and removes the directory. */
  stop(): Promise<void>;
}

const run = promisify(execFile);
const SLOTS = 16_384;
// A failed master's replica takes over after about twice this; the default (15 s) would make every failover test slow.
const NODE_TIMEOUT_MS = 2_000;
const DEFAULT_WAIT_MS = 20_000;
const FAILOVER_RETRY_MS = 3 * NODE_TIMEOUT_MS;
// Nodes of every cluster this process started: an exit that skipped stop() (a crashed test file) leaves no redis-server behind.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts six of Debian's redis-server with cluster mode on free ports, joins them with `redis-cli --cluster create`
 * (three masters, one replica each) and waits until every node says the cluster is ok. Data lives in memory only
 * (replication is what keeps it); `stop()` kills every node, also after a failed start.
 */
export async function startRedisCluster(options: { masters?: number } = {}): Promise<RedisClusterHandle> {
  const binary = redisServerBinary();
  const masters = options.masters ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'webui-redis-cluster-'));
  const nodes = new Map<number, ChildProcess>();
  const stop = async (): Promise<void> => {
    await Promise.all([...nodes.values()].map((child) => stopProcess(child, 'SIGKILL')));
    for (const child of nodes.values()) running.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < masters * 2; i++) ports.push(await freeClusterNodePort(ports));
    await Promise.all(
      ports.map(async (port) => {
        const nodeDir = join(dir, String(port));
        mkdirSync(nodeDir);
        const args = [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          nodeDir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          String(NODE_TIMEOUT_MS),
          // A replica however far behind may take over: the tests decide what a forced failover loses, not the replica's age.
          '--cluster-replica-validity-factor',
          '0',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--logfile',
          '',
        ];
        const child = await launchRedis(binary, args, port, undefined);
        nodes.set(port, child);
        running.add(child);
      }),
    );
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });
    const handle = clusterHandle(ports, dir, nodes, stop);
    await handle.healthy(DEFAULT_WAIT_MS);
    return handle;
  } catch (error) {
    await stop();
    throw error;
  }
}

function clusterHandle(ports: number[], dir: string, nodes: Map<number, ChildProcess>, stop: () => Promise<void>): RedisClusterHandle {
  const frozen = new Set<number>();
  const node = (port: number): ChildProcess => {
    const child = nodes.get(port);
    if (child === undefined) throw new Error(`no node of this cluster on port ${port}`);
    return child;
  };
  const answering = (): number[] => ports.filter((port) => !frozen.has(port));
  /** The cluster as a node that answers sees it: port → role and master's node id, by CLUSTER NODES. */
  const view = async (): Promise<ClusterNode[]> => {
    for (const port of answering()) {
      const text = await ask(port, 'CLUSTER', 'NODES').catch(() => null);
      if (typeof text === 'string') return parseClusterNodes(text);
    }
    throw new Error('no node of the cluster answers');
  };
  const allOk = async (among: number[]): Promise<boolean> => {
    for (const port of among) {
      const info = await ask(port, 'CLUSTER', 'INFO').catch(() => '');
      if (!String(info).includes('cluster_state:ok') || !String(info).includes(`cluster_slots_ok:${SLOTS}`)) return false;
    }
    return true;
  };
  const mastersNow = async (): Promise<ClusterNode[]> => (await view()).filter((entry) => entry.master && !entry.failed);
  const replicaNode = async (masterPort: number): Promise<number> => {
    const all = await view();
    const master = all.find((entry) => entry.port === masterPort);
    const replica = all.find((entry) => master !== undefined && entry.masterId === master.id);
    if (replica === undefined) throw new Error(`the node on port ${masterPort} has no replica`);
    return replica.port;
  };
  const healthy = async (): Promise<boolean> => {
    if (!(await allOk(ports))) return false;
    const all = await view();
    // Every node known, none failed, and every master with its replica again.
    const mastersWithReplica = all.filter((entry) => entry.master && all.some((other) => other.masterId === entry.id));
    if (all.length !== ports.length || all.some((entry) => entry.failed) || mastersWithReplica.length !== ports.length / 2) return false;
    // A replica that has not synced yet cannot take over in a planned failover.
    for (const replica of all.filter((entry) => !entry.master))
      if (!String(await ask(replica.port, 'INFO', 'replication')).includes('master_link_status:up')) return false;
    return true;
  };
  return {
    url: `redis-cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    ports,
    dir,
    masters: async () => (await mastersNow()).map((entry) => entry.port),
    async masterOf(key) {
      const slot = Number(await ask(answering()[0] as number, 'CLUSTER', 'KEYSLOT', key));
      const owner = (await mastersNow()).find((entry) => entry.slots.some(([from, to]) => slot >= from && slot <= to));
      if (owner === undefined) throw new Error(`no master serves slot ${slot}`);
      return owner.port;
    },
    replicaOf: replicaNode,
    async failover(masterPort) {
      const replica = await replicaNode(masterPort);
      let askedAt = 0;
      await waitFor(
        async () => {
          // A manual failover the master did not take up in time is given up by the replica: asked again.
          if (Date.now() - askedAt > FAILOVER_RETRY_MS) {
            askedAt = Date.now();
            await ask(replica, 'CLUSTER', 'FAILOVER');
          }
          return (await mastersNow()).some((entry) => entry.port === replica) && (await healthy());
        },
        DEFAULT_WAIT_MS,
        `the replica on port ${replica} promoted by CLUSTER FAILOVER`,
      );
      return replica;
    },
    async replicated(masterPort, timeoutMs = DEFAULT_WAIT_MS) {
      const offsetOf = (info: string, pattern: RegExp): number => Number(pattern.exec(info)?.[1] ?? -1);
      const target = offsetOf(String(await ask(masterPort, 'INFO', 'replication')), /^master_repl_offset:(\d+)/m);
      await waitFor(
        async () => offsetOf(String(await ask(masterPort, 'INFO', 'replication')), /^slave0:.*offset=(\d+)/m) >= target,
        timeoutMs,
        `the replica of the master on port ${masterPort} at offset ${target}`,
      );
    },
    freeze(port) {
      node(port).kill('SIGSTOP');
      frozen.add(port);
    },
    thaw(port) {
      node(port).kill('SIGCONT');
      frozen.delete(port);
    },
    async promotionOf(frozenMasterPort, timeoutMs = DEFAULT_WAIT_MS) {
      const replica = await replicaNode(frozenMasterPort);
      await waitFor(
        async () => (await mastersNow()).some((entry) => entry.port === replica) && (await allOk(answering())),
        timeoutMs,
        `the replica on port ${replica} promoted in place of the frozen master on port ${frozenMasterPort}`,
      );
      return replica;
    },
    async healthy(timeoutMs = DEFAULT_WAIT_MS) {
      await waitFor(healthy, timeoutMs, 'the cluster healthy on every node');
    },
    stop,
  };
}

interface ClusterNode {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  /** The master's id, for a replica. */
  masterId: string | null;
  slots: Array<[number, number]>;
}

/** CLUSTER NODES: `id ip:port@bus flags master-id ping pong epoch link slot…` a line. */
function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', address = '', flags = '', masterId = '-', , , , , ...slots] = line.trim().split(' ');
      const flagList = flags.split(',');
      return {
        id,
        port: Number(address.split('@')[0]?.split(':').pop()),
        master: flagList.includes('master'),
        failed: flagList.includes('fail') || flagList.includes('fail?') || flagList.includes('noaddr'),
        masterId: masterId === '-' ? null : masterId,
        slots: slots
          .filter((range) => /^\d+(-\d+)?$/.test(range))
          .map((range) => {
            const [from, to] = range.split('-').map(Number);
            return [from as number, to ?? (from as number)] as [number, number];
          }),
      };
    });
}

/** One command to one node over a connection of its own with short timeouts (a frozen node must not hang the harness). */
async function ask(port: number, command: string, ...args: string[]): Promise<unknown> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    connectTimeout: 500,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  // A check that fails counts as "not yet", as vi.waitFor treats any throw.
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`${what}: not within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
