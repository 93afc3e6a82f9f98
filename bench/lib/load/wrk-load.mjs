// One wrk run (Debian's `wrk`, a load generator in C): the same LoadResult as autocannon's, with
// more of a small machine's CPU left to the server under test.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../children.mjs';

/** True when `wrk` runs on this machine. */
export function hasWrk() {
  const probe = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined;
}

// wrk's Lua hook prints the summary as one JSON line after the human-readable report.
const DONE_HOOK = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`;

/**
 * Drives `url` for `duration` seconds with one wrk thread and `connections` keep-alive connections.
 * @param {{ url: string, method?: string, headers?: Record<string, string>, body?: string, connections: number, duration: number }} options
 * @returns {Promise<import('./http-load.mjs').LoadResult>}
 */
export function runWrkLoad({ url, method = 'GET', headers = {}, body, connections, duration }) {
  const script = join(makeTempDir('wrk'), 'request.lua');
  const lines = [`wrk.method = ${JSON.stringify(method)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  if (body !== undefined) lines.push(`wrk.body = ${JSON.stringify(body)}`);
  writeFileSync(script, `${lines.join('\n')}\n${DONE_HOOK}`);
  // wrk takes whole seconds; shorter runs (the smoke's warm-up) round up to one.
  const seconds = Math.max(1, Math.round(duration));
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (code !== 0 || line === undefined) return reject(new Error(`wrk exited with ${code}: ${output.trim().slice(0, 500)}`));
      const r = JSON.parse(line.slice('WRK_JSON '.length));
      resolve({
        rps: r.requests / (r.duration_us / 1e6),
        p50: r.p50_us / 1000,
        p99: r.p99_us / 1000,
        requests: r.requests,
        non2xx: r.non2xx,
        errors: r.errors,
        seconds: r.duration_us / 1e6,
      });
    });
  });
}
