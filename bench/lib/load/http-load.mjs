// One autocannon run: requests/s, latency percentiles at 0.01 ms resolution, and every failure counted.
import autocannon from 'autocannon';
import { latencySummary, SampleBuffer } from '../stats.mjs';

/**
 * @typedef {object} LoadResult
 * @property {number} rps completed requests per second
 * @property {number} p50 ms
 * @property {number} p99 ms
 * @property {number} requests completed requests
 * @property {number} non2xx
 * @property {number} errors socket errors (timeouts included) and resets
 * @property {number} seconds measured duration
 * @property {string} [firstError] the first failure, when there was one
 */

/**
 * Drives `url` for `duration` seconds with `connections` keep-alive connections.
 * @param {{ url: string, method?: string, headers?: Record<string, string>, body?: string, connections: number, duration: number }} options
 * @returns {Promise<LoadResult>}
 */
export function runHttpLoad({ url, method = 'GET', headers = {}, body, connections, duration }) {
  const latencies = new SampleBuffer();
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, method, headers, body, connections, duration, pipelining: 1, timeout: 10 }, (error, result) => {
      if (error) return reject(error);
      const { p50, p99 } = latencySummary(latencies.toArray());
      resolve({
        rps: result.requests.total / result.duration,
        p50,
        p99,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors + result.resets,
        seconds: result.duration,
      });
    });
    // autocannon's own histogram has 1 ms buckets: too coarse for a 5 ms target, so every response time is kept.
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}
