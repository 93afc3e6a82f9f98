// The gateway's memory while a large body streams through it, each way, twice: the server's RSS sampled during the
// transfer and the kernel's own peak (VmHWM, reset before each transfer), against its RSS just before; the upstream's
// beside it, a bare node:http server receiving or sending the same body, for what Node's own buffers take.
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { rssBytes, sleep } from '../children.mjs';
import { DOWNLOAD_PATH, UPLOAD_PATH } from './bench-upstream.mjs';
import { gatewayConfig, loginCookie, startBenchUpstream } from './gateway-setups.mjs';

export const STREAMED_BYTES = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x62);
const SAMPLE_EVERY_MS = 5;

/**
 * A fresh upstream and server (the servers' pinning); an upload and then a download of `bytes` through the server, each
 * checked for its length, then both again: the first transfer of a process also fills its allocator's free lists, which a
 * bare node:http server shows too. One entry per transfer: seconds, and RSS before, peak and growth of the server and of
 * the upstream; `error` when it failed.
 */
export async function measureStreamingMemory({ startServer, pinning, log, bytes = STREAMED_BYTES }) {
  const upstream = await startBenchUpstream(pinning.upstreamPrefix);
  const server = await startServer('server', pinning, undefined, gatewayConfig(upstream));
  try {
    const cookie = await loginCookie(server);
    // Startup garbage collected and the heap settled before the first reading.
    await sleep(1_000);
    const results = [];
    for (const time of /** @type {const} */ (['first', 'again']))
      for (const [direction, transfer] of /** @type {const} */ ([
        ['upload', upload],
        ['download', download],
      ])) {
        const pids = { server: server.child.pid, upstream: upstream.child.pid };
        const result = await whileSampling(pids, () => transfer(server.port, cookie, bytes));
        results.push({ direction, time, bytes, ...result });
        log(
          `gateway ${direction} of ${bytes / 1024 ** 2} MB (${time}): ${result.seconds.toFixed(2)} s, server RSS ` +
            `${mb(result.server.before)} MB before, peak ${mb(result.server.peak)} MB; upstream ${mb(result.upstream.before)} MB, ` +
            `peak ${mb(result.upstream.peak)} MB${result.error ? `, FAILED: ${result.error}` : ''}`,
        );
        await sleep(500);
      }
    return results;
  } finally {
    await Promise.all([server.stop(), upstream.stop()]);
  }
}

const mb = (value) => (value / 1024 ** 2).toFixed(1);

/** Runs `transfer` while sampling the RSS of each of `pids`; a peak is the highest sample or VmHWM, whichever is higher. */
async function whileSampling(pids, transfer) {
  const watched = Object.entries(pids).map(([name, pid]) => {
    const resetPeak = resetHighWaterMark(pid);
    const before = rssBytes(pid) ?? NaN;
    return { name, pid, resetPeak, before, peak: before };
  });
  const sample = () => watched.forEach((w) => (w.peak = Math.max(w.peak, rssBytes(w.pid) ?? NaN)));
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  const startedAt = performance.now();
  let error;
  try {
    await transfer();
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  sample();
  const measured = Object.fromEntries(
    watched.map((w) => {
      const highWater = w.resetPeak ? highWaterMark(w.pid) : NaN;
      const peak = Number.isFinite(highWater) ? Math.max(w.peak, highWater) : w.peak;
      return [w.name, { before: w.before, peak, growth: peak - w.before, sampledBy: w.resetPeak ? 'VmHWM and samples' : 'samples' }];
    }),
  );
  return { seconds, ...measured, ...(error ? { error } : {}) };
}

/** Writing 5 to clear_refs resets the process's peak RSS (Linux 4.0+); false where that is not allowed. */
function resetHighWaterMark(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function highWaterMark(pid) {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** POSTs `bytes` through the server a chunk at a time, as fast as it takes them; the upstream answers how many it got. */
function upload(port, cookie, bytes) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: UPLOAD_PATH,
        method: 'POST',
        agent: false,
        headers: { cookie, 'content-type': 'application/octet-stream', 'content-length': bytes },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode === 200 && JSON.parse(body).bytes === bytes) resolve();
          else reject(new Error(`upload answered ${res.statusCode} ${body.slice(0, 200)}`));
        });
      },
    );
    req.on('error', reject);
    const write = (sent) => {
      while (sent < bytes) {
        const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - sent));
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', () => write(sent));
      }
      req.end();
    };
    write(0);
  });
}

/** GETs `bytes` through the server and counts them as they come. */
function download(port, cookie, bytes) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `${DOWNLOAD_PATH}?bytes=${bytes}`, agent: false, headers: { cookie } }, (res) => {
      let received = 0;
      res.on('data', (chunk) => (received += chunk.length));
      res.on('end', () => {
        if (res.statusCode === 200 && received === bytes) resolve();
        else reject(new Error(`download answered ${res.statusCode} with ${received} bytes`));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
