// Child processes of the benchmark: spawned, watched, measured through /proc, and always killed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** @type {Set<import('node:child_process').ChildProcess>} */
const live = new Set();
/** @type {Set<string>} */
const tempDirs = new Set();

// Whatever happens (error, Ctrl-C, a failed assertion), no server outlives the benchmark and no temp dir stays.
process.on('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping the servers\n`);
    process.exit(130);
  });
}

/** A fresh directory under os.tmpdir(), removed when the benchmark exits. */
export function makeTempDir(label) {
  const dir = mkdtempSync(join(tmpdir(), `webui-bench-${label}-`));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/**
 * @typedef {object} Child
 * @property {import('node:child_process').ChildProcess} process
 * @property {number} pid
 * @property {number} port
 * @property {string} logFile stdout and stderr of the child
 * @property {() => boolean} exited
 */

/**
 * Spawns `node script ...args` with its output going to a log file (a pipe read by this process
 * would steal CPU from the load generator). The child runs in `cwd`, so no stray config is read.
 * @returns {Child}
 */
export function spawnNode(script, args, options) {
  return spawnClean([process.execPath, script, ...args], options);
}

/**
 * Spawns `commandLine` (a server on Node, Bun or Deno) as spawnNode does: under `prefix`, in `cwd`, output to `logFile`,
 * with the benchmark's environment less its WEBUI_* variables and NODE_OPTIONS, plus `env`.
 * @returns {Child}
 */
export function spawnClean(commandLine, { cwd, port, logFile, env = {}, prefix = [] }) {
  const cleanEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_') && name !== 'NODE_OPTIONS'),
  );
  return spawnLogged([...prefix, ...commandLine], { cwd, port, logFile, env: { ...cleanEnv, ...env } });
}

/**
 * Spawns any command the same way (output to `logFile`, killed when the benchmark exits): redis-server.
 * A prefix such as `taskset -c 1` execs the command in the same process, so the pid is the command's.
 * @returns {Child}
 */
export function spawnLogged(commandLine, { cwd, port, logFile, env = process.env }) {
  const out = openSync(logFile, 'a');
  const [command, ...commandArgs] = commandLine;
  const child = spawn(/** @type {string} */ (command), commandArgs, { cwd, stdio: ['ignore', out, out], env });
  closeSync(out);
  live.add(child);
  let gone = false;
  child.once('exit', () => {
    gone = true;
    live.delete(child);
  });
  return { process: child, pid: /** @type {number} */ (child.pid), port, logFile, exited: () => gone };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export function stopChild(child, graceMs = 3_000) {
  if (child.exited()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
    child.process.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.process.kill('SIGTERM');
  });
}

/** One GET; resolves with the status and body, rejects on a socket error. */
export function httpGet(port, path, headers = {}, agent = false) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: /** @type {number} */ (res.statusCode), headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`GET ${path} timed out`)));
  });
}

/** One POST of a JSON body. */
export function httpPostJson(port, path, value, headers = {}) {
  const body = JSON.stringify(value);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: /** @type {number} */ (res.statusCode), headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`POST ${path} timed out`)));
    req.end(body);
  });
}

/**
 * Polls `path` until it answers 200; resolves with the milliseconds since `startedAt`
 * (a performance.now() value). Rejects when the child dies or `timeoutMs` passes.
 */
export async function waitHealthy(child, path, startedAt, timeoutMs = 15_000) {
  const deadline = startedAt + timeoutMs;
  for (;;) {
    if (child.exited()) throw new Error(`the process exited before answering ${path}; its output:\n${tail(child.logFile)}`);
    try {
      const res = await httpGet(child.port, path);
      if (res.status === 200) return performance.now() - startedAt;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`no 200 from ${path} within ${timeoutMs} ms; output:\n${tail(child.logFile)}`);
    await sleep(5);
  }
}

/** Resident set size in bytes, from /proc/<pid>/status (VmRSS); null where /proc is missing. */
export function rssBytes(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const CLOCK_TICKS_PER_SECOND = (() => {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout);
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * Counters of the whole process: read syscalls and bytes read (sockets, files, eventfds) from
 * /proc/<pid>/io, and CPU seconds (user + system) from /proc/<pid>/stat. Null where /proc is missing.
 */
export function readCounters(pid) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(io)?.[1] ?? NaN);
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(rest[11]) + Number(rest[12])) / CLOCK_TICKS_PER_SECOND;
    return { syscr: field('syscr'), rchar: field('rchar'), cpuSeconds };
  } catch {
    return null;
  }
}

export function tail(file, lines = 20) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
